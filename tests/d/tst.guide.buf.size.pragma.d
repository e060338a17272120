/* @target: ticks 3 1 */
/*
 * The DTrace Guide's "Buffer Sizes": bufsize set with #pragma D option
 * (dtrace -P syscall, every probe of a provider, is every probe of the test
 * program here, with the default action).
 */
#pragma D option bufsize=1m

rt$target:::
{
}
