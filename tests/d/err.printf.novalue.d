/* A conversion without its value. */
BEGIN
{
	printf("%d %s\n", 1);
}
