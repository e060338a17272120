/* @target: writes 2 300 */
/* @options: -x switchrate=100hz */
/*
 * The DTrace Guide's normalize() every ten seconds ("Data Normalization"):
 * the rate since the start, printed with printa(). In a process:
 * syscall:::entry is the test program's rt:::write-entry, and tick-10sec
 * its rt:::tick(0, round) after each round of writes, which counts as ten
 * seconds (this->now, in nanoseconds, for the Guide's timestamp); the
 * program pauses 300 ms after each, so that dtrace prints before the next.
 * 780 writes in 10 "seconds", then 1330 in 20.
 */
#pragma D option quiet

BEGIN
{
	start = (uint64_t)0; /* the program's clock, a uint64_t as timestamp is */
}

rt$target:::write-entry
{
	@func[execname] = count();
}

rt$target:::tick
{
	this->now = (arg1 + 1) * 10 * 1000000000;
	normalize(@func, (this->now - start) / 1000000000);
	printa(@func);
}
