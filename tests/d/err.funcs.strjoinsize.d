/* A strjoin() longer than strsize - 1 faults, as DTrace's does. */
#pragma D option strsize=16
#pragma D option quiet

BEGIN
{
	printf("%s\n", strjoin("0123456789", "0123456789"));
}

BEGIN
{
	exit(1);
}
