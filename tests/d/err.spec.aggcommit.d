/* No aggregation after a commit() either. */
BEGIN
{
	commit(1);
	@sums = sum(2);
}
