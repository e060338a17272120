/* @target: ticks 4 1 */
/*
 * BEGIN hands out a speculation (its ID in a global variable), the target
 * speculates into it, and END commits what the target recorded there.
 */
#pragma D option quiet

BEGIN
{
	spec = speculation();
	printf("BEGIN: speculation %d\n", spec);
}

rt$target:::tick
{
	speculate(spec);
	printf("tick %d\n", arg1);
}

END
{
	commit(spec);
}

END
{
	printf("END\n");
}
