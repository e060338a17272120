/* @target: writes 2 */
/*
 * The DTrace Guide's quantize() ("Aggregations"): the write(2) times of
 * writetime.d as a power-of-two distribution, by process name. The times
 * differ from run to run; here the distribution is of the bytes each write
 * returned (100 to 1200), the entry's size kept in self->ts as the Guide
 * keeps its timestamp.
 */
rt$target:::write-entry
{
	self->ts = arg2;
}

rt$target:::write-return
/self->ts/
{
	@time[execname] = quantize(arg0);
	self->ts = 0;
}
