/* More keys than the tuple registers (DTrace's err.tupoflow.d). */
BEGIN
{
	a[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10] = 0;
}
