/*
 * stddev(): the population standard deviation in integers, as DTrace
 * computes it (2 for 2 4 4 4 5 5 7 9), sorted by it.
 */
#pragma D option quiet

BEGIN
{
	@s["spread"] = stddev(2);
	@s["spread"] = stddev(4);
	@s["spread"] = stddev(4);
	@s["spread"] = stddev(4);
	@s["spread"] = stddev(5);
	@s["spread"] = stddev(5);
	@s["spread"] = stddev(7);
	@s["spread"] = stddev(9);
	@s["signs"] = stddev(-10);
	@s["signs"] = stddev(10);
	@s["one"] = stddev(1000);
	printa("%-8s %@d\n", @s);
	exit(0);
}
