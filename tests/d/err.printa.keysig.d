/* printa() of several aggregations: they have the same keys. */
BEGIN
{
	@a[1] = count();
	@b["x", 2] = count();
	printa(@a, @b);
}
