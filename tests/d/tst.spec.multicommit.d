/*
 * A clause may commit several speculations, as the Guide says ("a clause
 * may contain multiple commit() calls to commit disjoint buffers"): each
 * one's records in the order of the commits.
 */
#pragma D option quiet
#pragma D option nspec=2

BEGIN
{
	a = speculation();
	b = speculation();
}

BEGIN
{
	speculate(b);
	printf("in b\n");
}

BEGIN
{
	speculate(a);
	printf("in a\n");
}

BEGIN
{
	commit(a);
	commit(b);
}

BEGIN
{
	exit(0);
}
