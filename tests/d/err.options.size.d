/* A size that is not one (a negative number, as DTrace's err.bufsize-negative.d). */
#pragma D option bufsize=-1

BEGIN
{
	exit(0);
}
