/* @target: writes 2 */
/*
 * The DTrace Guide's first aggregation ("Aggregations"): write system
 * calls counted under one key. In a process: syscall::write:entry is the
 * test program's rt:::write-entry, around its 870 write(2)s.
 */
rt$target:::write-entry
{
	@counts["write system calls"] = count();
}
