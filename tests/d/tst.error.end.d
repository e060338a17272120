/*
 * exit() in ERROR ends the trace: END still runs (illumos's
 * tst.errorend.d), and dtrace exits with ERROR's status, not the faulting
 * clause's.
 */
#pragma D option quiet

ERROR
{
	printf("Error fired\n");
	exit(0);
}

END
{
	printf("End fired after exit\n");
}

BEGIN
{
	*(char *)NULL;
	exit(1);
}
