/* @target: opens */
/*
 * The Guide's example of "Using a Speculation": a speculation per open,
 * speculated into by every probe of the thread after it. Nothing commits
 * it, so nothing is printed. (syscall::open:entry and syscall::: are the
 * test program's rt probes.)
 */
rt$target:::open-entry
{
	self->spec = speculation();
}

rt$target:::
/self->spec/
{
	speculate(self->spec);
	printf("this is speculative");
}
