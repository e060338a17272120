/* DTrace's check of a conversion with two '*' for its width. */
BEGIN
{
	printf("%**d\n", 1, 2, 3);
}
