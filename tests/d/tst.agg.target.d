/* @target: ticks 100 3 */
/*
 * Aggregations in the target, one table per thread, merged at exit: three
 * threads fire rt:::tick 100 times each (arg0 the thread, arg1 0 to 99).
 */
#pragma D option quiet

rt$target:::tick
{
	@fires[arg0] = count();
	@total = sum(arg1);
	@mean = avg(arg1);
	@low = min(arg1);
	@high = max(arg1);
	@byname[probename, arg0 % 2] = count();
}

rt$target:::tick
/arg1 >= 90/
{
	@last = lquantize(arg1, 90, 100, 5);
}
