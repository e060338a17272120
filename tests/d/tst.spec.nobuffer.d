/*
 * There is one speculative buffer by default (nspec): a second
 * speculation() while the first is in use returns 0, an ID that is always
 * invalid but may be given to speculate(), commit() and discard(), which
 * then do nothing. (The Guide: "Creating a Speculation".) dtrace reports
 * "1 failed speculation (no speculative buffer available)".
 */
#pragma D option quiet

BEGIN
{
	a = speculation();
	b = speculation();
	printf("a: %d, b: %d\n", a, b);
}

BEGIN
{
	speculate(b);
	printf("not recorded\n");
}

BEGIN
{
	commit(b);
	discard(b);
}

BEGIN
{
	exit(0);
}
