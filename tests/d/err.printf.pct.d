/* DTrace's check: "%%" takes no flags. */
BEGIN
{
	printf("%-%\n");
}
