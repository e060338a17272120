/*
 * aggsortpos chooses the aggregation of a printa() of several whose values
 * sort the rows first: the second one here (from 0).
 */
#pragma D option quiet
#pragma D option aggsortpos=1

BEGIN
{
	@c["a"] = count();
	@c["b"] = count();
	@c["b"] = count();
	@s["a"] = sum(10);
	@s["c"] = sum(5);
}

BEGIN
{
	printa("%s %@d %@d\n", @c, @s);
	exit(0);
}
