/* @target: ticks 1 1 */
/*
 * progenyof(pid): whether the process is pid or one of its descendants.
 * BEGIN runs in dtrace: dtrace is its own progeny, its parent's and init's,
 * not its child's (the target, started by -c). The target is its own,
 * dtrace's and dtrace's parent's. No process descends from -1.
 */
#pragma D option quiet

BEGIN
{
	printf("dtrace: %d %d %d %d %d\n", progenyof($pid), progenyof($ppid), progenyof(1),
	    progenyof($target), progenyof(-1));
}

rt$target:::tick
{
	printf("target: %d %d %d %d\n", progenyof($target), progenyof($pid), progenyof($ppid),
	    progenyof(-1));
}
