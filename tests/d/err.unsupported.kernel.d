/*
 * DTrace's functions that act on the kernel are refused, with why.
 */
BEGIN
{
	panic();
}
