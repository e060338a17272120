/* @options: -x errtags */
/* printf() of an action: no conversion takes void. */
BEGIN
{
	printf("%s\n", printf("x"));
}
