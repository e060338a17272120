/*
 * Once committed or discarded, a speculation takes nothing more:
 * speculate() into it, commit() or discard() of it again are silently
 * nothing. Data-recording actions may follow a discard() in a clause.
 */
#pragma D option quiet

BEGIN
{
	a = speculation();
}

BEGIN
{
	speculate(a);
	printf("committed\n");
}

BEGIN
{
	commit(a);
}

BEGIN
{
	speculate(a);
	printf("after the commit\n");
}

BEGIN
{
	commit(a);
	discard(a);
}

BEGIN
{
	discard(a);
	printf("after a discard, in the principal buffer\n");
	exit(0);
}
