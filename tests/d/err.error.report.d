/*
 * With an ERROR clause enabled, dtrace still reports the fault, as
 * illumos's dtrace does (its own enabling of ERROR reports every fault: the
 * Guide's "ERROR Probe" shows both); the clause's exit(1) is dtrace's
 * status.
 */
#pragma D option quiet

BEGIN
{
	x = 1;
	trace(x / (x - 1));
}

ERROR
{
	exit(1);
}
