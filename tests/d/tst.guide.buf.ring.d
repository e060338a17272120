/* @target: ticks 1000 1 */
/* @args: rtprog */
/*
 * The DTrace Guide's ring buffer example ("Buffers and Buffering", "ring
 * Policy"), in a process: syscall:::entry is the test program's rt:::tick,
 * fired 1000 times (arg1 = 0 to 999), and syscall::rexit:entry, the
 * process's end, its last tick. The program's name is the first argument,
 * as in the Guide, read as a string: $$1 (the Guide's $1 takes the
 * argument as D text, which needs the quotes of a string in the argument
 * itself). trace() is of arg1 rather than timestamp, whose values differ
 * from run to run.
 *
 * A record is 32 bytes here (a 24-byte header and one value). The ring
 * keeps the newest records and overwrites the oldest; here it does so a
 * sixteenth of the buffer at a time (docs/runtime.md: 16 chunks of 1k, the
 * oldest chunk given up whole when the head enters a new one), so it keeps
 * 15/16 to all of its 16k. The 1001st record, exit()'s, is in the 32nd
 * chunk: the ring holds the 16 chunks that end with it, ticks 512 to 999
 * and that record, printed once tracing ends, oldest to newest (exit()'s
 * as a line with no value).
 */
#pragma D option bufpolicy=ring
#pragma D option bufsize=16k

rt$target:::tick
/execname == $$1/
{
	trace(arg1);
}

rt$target:::tick
/arg1 == 999/
{
	exit(0);
}
