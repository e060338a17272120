/* @target: ticks 5 1 */
/* @options: -x bufsize=16 */
/*
 * -x bufsize=16, as DTrace's tests give it (tst.smallring.d): DTrace's
 * record of a trace() takes 16 bytes; ours takes a 24-byte header more, so
 * the buffer is raised to hold the largest record (and the runtime's least,
 * 64 bytes). With the fill policy it takes two records, then tracing stops.
 */
#pragma D option quiet
#pragma D option bufpolicy=fill

rt$target:::tick
{
	trace(arg1);
}
