/* An associative array is always indexed. */
BEGIN
{
	a[1] = 1;
	trace(a);
}
