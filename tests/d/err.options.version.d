/* A version of D DTrace never had: its message (illumos's err.version.d). */
#pragma D option version=99.1

BEGIN
{
	exit(0);
}
