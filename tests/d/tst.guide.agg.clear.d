/* @target: writes 2 300 */
/* @options: -x switchrate=100hz */
/*
 * The DTrace Guide's clear() ("Clearing Aggregations"): the rate of the
 * last ten seconds only. In a process: syscall:::entry is the test
 * program's rt:::write-entry, tick-10sec its rt:::tick(0, round) after each
 * round of writes, which counts as ten seconds (this->now, in nanoseconds,
 * for the Guide's timestamp), and the program pauses 300 ms after each so
 * that dtrace prints before the next. The Guide's key, execname, is one
 * name in one process: the key is the size written instead (arg2), which
 * makes the point the Guide makes of clear(): its first round writes 1100
 * and 1200 bytes and its second does not, and the keys stay, at 0.
 */
#pragma D option quiet

BEGIN
{
	last = (uint64_t)0; /* the program's clock, a uint64_t as timestamp is */
}

rt$target:::write-entry
{
	@func[arg2] = count();
}

rt$target:::tick
{
	this->now = (arg1 + 1) * 10 * 1000000000;
	normalize(@func, (this->now - last) / 1000000000);
	printa(@func);
	clear(@func);
	last = this->now;
}
