/* @options: -x errtags */
/* An aggregation as another's key. */
BEGIN
{
	@a = count();
	@[@a] = count();
}
