/* @options: -x errtags */
/* An operator of an action: DTrace's message names the operator. */
BEGIN
{
	x = 1 + -trace(0);
}
