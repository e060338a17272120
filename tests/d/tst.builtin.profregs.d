/* @target: ticks 2000000000 */
/*
 * uregs[] in a profile probe: the registers where the profile signal
 * interrupted the thread, so uregs[R_PC] is arg1 (the interrupted user PC)
 * and the stack pointer is set. The first sample ends the trace.
 */
#pragma D option quiet

profile-997
/arg1/
{
	printf("%d %d\n", uregs[R_PC] == arg1, uregs[R_SP] != 0);
	exit(0);
}
