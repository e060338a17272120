/* A string where an integer conversion wants an integer. */
BEGIN
{
	printf("%d\n", "x");
}
