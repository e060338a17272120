/* @target: writes 2 */
/*
 * The DTrace Guide's lquantize() ("Aggregations"): the file descriptors
 * written to, by process name, in buckets of one from 0 to 100. In a
 * process: syscall::write:entry is the test program's rt:::write-entry
 * (arg0 the descriptor: 20, 21, 29 and 30).
 */
rt$target:::write-entry
{
	@fds[execname] = lquantize(arg0, 0, 100, 1);
}
