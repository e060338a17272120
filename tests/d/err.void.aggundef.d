/* @options: -x errtags */
/* An aggregation alone that nothing defined. */
BEGIN
{
	@b;
}
