/*
 * The ERROR probe's arguments (the Guide's table): arg1 the EPID of the
 * faulting clause, arg2 the action (1: the first), arg3 the DIF offset,
 * arg4 the fault type, arg5 the bad address (illumos's
 * tst.DTRACEFLT_BADADDR.d and tst.DTRACEFLT_UNKNOWN.d).
 */
#pragma D option quiet

BEGIN
{
	myepid = epid;
}

BEGIN
{
	faulted = epid;
	x = (int *)0x4000;
	y = *x;
	trace(y);
}

ERROR
{
	printf("epid %s, action %d, offset %s, fault %d (BADADDR %d), value 0x%x\n",
	    arg1 == faulted ? "right" : "wrong", arg2, (int)arg3 >= 0 ? "given" : "none",
	    arg4, DTRACEFLT_BADADDR, arg5);
	printf("the faulting clause's EPID follows the first's: %d\n", arg1 == myepid + 1);
	exit(0);
}
