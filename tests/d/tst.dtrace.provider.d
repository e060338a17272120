/*
 * dtrace::: matches the dtrace provider's three probes, BEGIN, END and
 * ERROR, as DTrace's does; ERROR fires for the fault only.
 */
#pragma D option quiet

dtrace:::
{
	printf("%s\n", probename);
}

BEGIN
{
	trace(*(int *)0);
}

BEGIN
{
	exit(0);
}
