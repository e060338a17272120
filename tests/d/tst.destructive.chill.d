/* @target: ticks 3 1 */
/* @options: -w */
/*
 * chill(ns) spins the firing thread; more than DTrace's 500 ms in a second
 * is its "illegal operation", which ERROR sees (DTRACEFLT_ILLOP, no DIF
 * offset), and the clause's record is abandoned.
 */
#pragma D option quiet

rt$target:::tick
/arg1 == 0/
{
	chill(1000000);
	printf("chilled 1 ms\n");
}

rt$target:::tick
/arg1 == 1/
{
	chill(600000000);
	printf("not printed\n");
}

ERROR
{
	printf("fault %s, action %d, offset %d\n", arg4 == DTRACEFLT_ILLOP ? "ILLOP" : "other",
	    arg2, (int)arg3);
}
