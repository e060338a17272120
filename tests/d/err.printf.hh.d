/* %hhd, %zu, %jd are C's, not DTrace's. */
BEGIN
{
	printf("%hhd\n", (char)1);
}
