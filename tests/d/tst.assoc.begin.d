/* @target: ticks 10 1 */
/*
 * BEGIN's associative arrays and string variables are the target's from
 * its first fire (BEGIN runs before the target's probes are enabled); what
 * the target stores, END sees.
 */
#pragma D option quiet

BEGIN
{
	limit["seq"] = 5;
	greeting = "from BEGIN";
	names[0] = "zero";
}

rt$target:::tick
/arg1 == limit["seq"]/
{
	seen[arg1] = 1;
	names[arg1] = strjoin(greeting, " and the target");
}

END
{
	printf("%d %d %s [%s]\n", seen[5], seen[4], names[0], names[5]);
}
