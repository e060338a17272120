/* A width from a string. */
BEGIN
{
	printf("%*d\n", "a", 1);
}
