/* A * width with no value for it. */
BEGIN
{
	printf("%d %*d\n", 1);
}
