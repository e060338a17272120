/* An option DTrace does not have: its message, where the pragma is. */
#pragma D option nosuchoption=1

BEGIN
{
	exit(0);
}
