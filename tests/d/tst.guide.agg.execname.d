/* @target: writes 2 */
/*
 * The DTrace Guide ("Aggregations"): write system calls counted by the
 * name of the process that makes them (syscall::write:entry is the test
 * program's rt:::write-entry).
 */
rt$target:::write-entry
{
	@counts[execname] = count();
}
