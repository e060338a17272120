/* @target: writes 2 */
/*
 * The DTrace Guide's average ("Aggregations"): a thread-local variable set
 * at write(2)'s entry and used, and cleared, at its return. The Guide
 * averages the time spent in write(2), which differs from run to run; here
 * self->ts keeps the size asked for at rt:::write-entry and the average is
 * of the bytes rt:::write-return reports (870000 in 1330 writes).
 */
rt$target:::write-entry
{
	self->ts = arg2;
}

rt$target:::write-return
/self->ts/
{
	@time[execname] = avg(arg0);
	self->ts = 0;
}
