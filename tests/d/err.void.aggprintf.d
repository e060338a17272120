/* @options: -x errtags */
/* printf() of an aggregation: aggregations are printed by printa(). */
BEGIN
{
	@a = count();
	printf("%d", @a);
}
