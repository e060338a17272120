/* @target: writes 2 */
/*
 * The DTrace Guide's denormalize() ("Data Normalization"): the rate, then
 * the raw counts again. In a process: syscall:::entry is the test
 * program's rt:::write-entry, and the clock is the program's: each round
 * of writes, ended by rt:::tick(0, round), counts as ten seconds (now, in
 * nanoseconds, for the Guide's timestamp).
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
	now = (arg1 + 1) * 10 * 1000000000;
}

END
{
	this->seconds = (now - start) / 1000000000;
	printf("Ran for %d seconds.\n", this->seconds);

	printf("Per-second rate:\n");
	normalize(@func, this->seconds);
	printa(@func);

	printf("\nRaw counts:\n");
	denormalize(@func);
	printa(@func);
}
