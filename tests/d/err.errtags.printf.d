/* @options: -x errtags */
/*
 * -x errtags: a format string printf() cannot parse is a syntax error to
 * DTrace's compiler (D_SYNTAX), whatever the conversion's fault.
 */
BEGIN
{
	printf("%.3.2d\n", 1);
}
