/* @target: raise 3 */
/* @options: -w */
/*
 * raise(sig) (destructive: -w) sends the signal to the thread that fired,
 * as the fire ends: the program's SIGUSR1 handler (which fires rt:::sig)
 * (the signal mode's, which fires rt:::sig with the signals it has had)
 * runs before its next tick.
 */
#pragma D option quiet

rt$target:::tick
{
	printf("tick %d\n", arg1);
}

rt$target:::tick
/arg1 == 1/
{
	raise(10); /* SIGUSR1 */
}

rt$target:::sig
{
	printf("handler: signal #%d\n", arg0);
}
