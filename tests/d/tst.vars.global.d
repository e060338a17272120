/* @target: ticks 100 1 */
/*
 * Global variables: BEGIN's values are the target's at its first fire, the
 * target's are END's; x op= e and x++ declare x, as D does.
 */
#pragma D option quiet

BEGIN
{
	start = 100;
	printf("BEGIN start %d\n", start);
}

rt$target:::tick
{
	n++;
	total += arg1;
	last = arg1;
}

rt$target:::tick
/arg1 == 99/
{
	printf("tick start %d n %d total %d\n", start, n, total);
	start = -1;
}

END
{
	printf("END start %d n %d total %d last %d\n", start, n, total, last);
}
