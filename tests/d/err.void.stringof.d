/* @options: -x errtags */
/* stringof() of an action. */
BEGIN
{
	printf("%s", stringof(trace(0)));
}
