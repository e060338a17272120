/*
 * A fault in an ERROR clause does not fire ERROR again (the Guide: "that
 * error is silently dropped"); the ERROR clause's variables and
 * aggregations are the program's, as in any clause.
 */
#pragma D option quiet

BEGIN
{
	trace(*(int *)8);
}

ERROR
{
	n++;
	@faults[arg4] = count();
	trace(*(int *)16);
}

ERROR
{
	exit(0);
}

END
{
	printf("ERROR ran %d time(s)\n", n);
}
