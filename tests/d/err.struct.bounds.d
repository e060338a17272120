/* An index past an array's bounds, when it is a constant, is DTrace's D_ARR_BOUNDS. */
int a[5];

BEGIN
{
	a[5] = 1;
}
