/* More values than conversions. */
BEGIN
{
	printf("%d %d\n", 1, 2, 3);
}
