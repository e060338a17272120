/* @target: handoff 3 */
/*
 * A speculation is the process's, not a thread's: a worker thread
 * speculates into it (rt:::tick), then the main thread commits it
 * (rt:::once). The worker's records appear in the main thread's output
 * where it commits them, between what it records before and after.
 */
#pragma D option quiet

rt$target:::tick
/arg1 == 0/
{
	spec = speculation();
}

rt$target:::tick
{
	speculate(spec);
	printf("thread %d: tick %d, speculative\n", arg0, arg1);
}

rt$target:::once
{
	printf("main: before the commit\n");
}

rt$target:::once
{
	commit(spec);
}

rt$target:::once
{
	printf("main: after the commit\n");
}
