/* @options: -x errtags */
/* trace() of an action: DTrace types actions void. */
BEGIN
{
	trace(trace(1));
}
