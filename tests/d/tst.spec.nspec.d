/*
 * nspec sets the number of speculative buffers: three here, given out as
 * IDs 1 to 3; a fourth speculation() fails while they are all in use, and
 * one that is committed can be had again.
 */
#pragma D option quiet
#pragma D option nspec=3

BEGIN
{
	a = speculation();
	b = speculation();
	c = speculation();
	d = speculation();
	printf("%d %d %d %d\n", a, b, c, d);
}

BEGIN
{
	commit(b);
}

BEGIN
{
	printf("%d\n", speculation());
	exit(0);
}
