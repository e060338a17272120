/* Positional conversions are refused. */
BEGIN
{
	printf("%2$d %1$d", 1, 2);
}
