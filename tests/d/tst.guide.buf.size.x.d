/* @target: ticks 3 1 */
/* @options: -x bufsize=1m */
/*
 * The DTrace Guide's "Buffer Sizes": dtrace -P syscall -x bufsize=1m, in a
 * process (every probe of the test program, with the default action).
 */
rt$target:::
{
}
