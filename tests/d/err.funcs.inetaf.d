/*
 * inet_ntop() of an address family neither AF_INET nor AF_INET6: an
 * illegal operation at fire time, as in DTrace.
 */
#pragma D option quiet

BEGIN
{
	af = -1;
	trace(inet_ntop(af, alloca(16)));
}

BEGIN
{
	exit(1);
}
