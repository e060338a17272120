/*
 * A division by zero (illumos's tst.DTRACEFLT_DIVZERO.d): arg4 is
 * DTRACEFLT_DIVZERO and arg5 0; the faulting clause's own exit() is not
 * reached, the ERROR clause's is.
 */
#pragma D option quiet

BEGIN { myid = epid; }
BEGIN { myid = epid; }
BEGIN { myid = epid; }
BEGIN { myid = epid; }

BEGIN
{
	myid = epid;
	i = 1;
	j = 2;
	j = i / (j - 2);
	exit(1);
}

ERROR
{
	printf("%d %d %d %d\n", arg1 == myid, arg2, arg4 == DTRACEFLT_DIVZERO, arg5);
	exit(arg1 != myid || arg4 != DTRACEFLT_DIVZERO || arg5 != 0);
}
