/* @options: -x errtags */
/* An aggregation alone, without its function: a statement of no effect. */
BEGIN
{
	@a = count();
	@a[1];
}
