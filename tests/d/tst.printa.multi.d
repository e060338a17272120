/*
 * printa() of several aggregations with the same keys: each key once, then
 * one column per aggregation (0 where one has no entry for the key), sorted
 * by the first aggregation's value, then the key; with a format, each %@
 * takes the next aggregation's value.
 */
#pragma D option quiet

BEGIN
{
	@c["a"] = count();
	@c["b"] = count();
	@c["b"] = count();
	@s["a"] = sum(10);
	@s["c"] = sum(5);
	@m["b"] = max(7);
}

BEGIN
{
	printa(@c, @s, @m);
	printa("%s: %@d calls, %@d total, %@d most\n", @c, @s, @m);
	exit(0);
}
