/* A conversion cut short by the end of the format. */
BEGIN
{
	printf("%-5");
}
