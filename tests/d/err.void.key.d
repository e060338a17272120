/* @options: -x errtags */
/* An action as an aggregation's key. */
BEGIN
{
	@[trace(0)] = count();
}
