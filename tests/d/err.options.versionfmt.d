/* A version that is not one: DTrace's message. */
#pragma D option version=1.x

BEGIN
{
	exit(0);
}
