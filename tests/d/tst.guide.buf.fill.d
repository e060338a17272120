/* @target: ticks 1000 1 */
/* @options: -b 2k -x bufpolicy=fill */
/*
 * The DTrace Guide's fill policy example ("Buffers and Buffering", "fill
 * Policy"):
 *	dtrace -n syscall:::entry -b 2k -x bufpolicy=fill
 * In a process: every probe of the test program, which fires rt:::tick
 * 1000 times. Each firing records the default action, a record header (24
 * bytes here: docs/runtime.md), so the 2k buffer holds 85 of them; the
 * 86th does not fit, tracing stops, and dtrace prints what is there and
 * exits.
 */
rt$target:::
{
}
