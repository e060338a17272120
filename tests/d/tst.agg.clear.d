/*
 * clear() zeroes the values and keeps the keys; a max() cleared is 0, and
 * later values are compared with it, as in DTrace.
 */
#pragma D option quiet

BEGIN
{
	@a["x"] = count();
	@a["x"] = count();
	@m = max(10);
	@n = max(-5);
}

BEGIN
{
	clear(@a);
	clear(@m);
	clear(@n);
	exit(0);
}

END
{
	@a["y"] = count();
	@m = max(3);
	@n = max(-7);
}
