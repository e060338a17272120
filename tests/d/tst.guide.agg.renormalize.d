/* @target: writes 2 */
/*
 * The DTrace Guide's normalize() ("Data Normalization"): system calls per
 * second over the whole run. In a process: syscall:::entry is the test
 * program's rt:::write-entry, and since the run's length differs from run
 * to run the clock is the program's: each round of writes, ended by
 * rt:::tick(0, round), counts as ten seconds (now, in nanoseconds, for the
 * Guide's timestamp). 1330 writes in 20 "seconds": 66 a second.
 */
#pragma D option quiet

BEGIN
{
	/*
	 * Get the start time, in nanoseconds.
	 */
	start = (uint64_t)0; /* the program's clock, a uint64_t as timestamp is */
}

rt$target:::write-entry
{
	@func[execname] = count();
}

rt$target:::tick
{
	now = (arg1 + 1) * 10 * 1000000000;
}

END
{
	/*
	 * Normalize the aggregation based on the number of seconds we have
	 * been running.  (There are 1,000,000,000 nanoseconds in one second.)
	 */
	normalize(@func, (now - start) / 1000000000);
}
