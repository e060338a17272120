/*
 * exit() stops the clauses after it in the same firing, as DTrace's
 * draining state does for every probe but END and ERROR: the second
 * tick-10ms clause never runs, every END clause does, and dtrace exits with
 * the status of the last exit() (END's).
 */
#pragma D option quiet

tick-10ms
{
	printf("first\n");
	exit(1);
}

tick-10ms
{
	printf("second: not printed\n");
}

END
{
	printf("end 1\n");
	exit(0);
}

END
{
	printf("end 2\n");
}
