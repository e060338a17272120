/* @target: ticks 10 1 */
/*
 * In the traced process, exit() stops the clauses after it in the same
 * firing, and every later firing: neither records, aggregates nor stores.
 */
#pragma D option quiet

rt$target:::tick
/arg1 == 5/
{
	exit(0);
}

rt$target:::tick
/arg1 == 5/
{
	printf("not printed\n");
}

rt$target:::tick
/arg1 == 5/
{
	@["not aggregated"] = count();
	x++;
}

rt$target:::tick
{
	printf("%d ", arg1);
}

END
{
	printf("\nx = %d\n", x);
}
