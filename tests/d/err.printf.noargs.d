/* No format. */
BEGIN
{
	printf();
}
