/* @target: handoff 3 */
/*
 * The DTrace Guide's "Buffer Ordering Policy": records are consumed buffer
 * by buffer (here thread by thread), and the temporal option orders them
 * by time instead. The test program hands work from one thread to another:
 * a thread fires rt:::tick three times and ends, then the main thread
 * fires rt:::once. trace() is of the probes' arguments rather than of
 * timestamp, whose values differ from run to run; the order is the
 * timestamps'.
 */
#pragma D option temporal

rt$target:::tick
{
	trace(arg1);
}

rt$target:::once
{
	trace(arg0);
}
