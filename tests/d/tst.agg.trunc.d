/*
 * trunc(@, n) keeps the n entries of largest value, trunc(@, -n) the n of
 * smallest, trunc(@) none.
 */
#pragma D option quiet

BEGIN
{
	@top[1] = sum(10);
	@top[2] = sum(30);
	@top[3] = sum(20);
	@top[4] = sum(40);
	@low[1] = sum(10);
	@low[2] = sum(30);
	@low[3] = sum(20);
	@gone[1] = count();
	trunc(@top, 2);
	trunc(@low, -1);
	trunc(@gone);
	exit(0);
}
