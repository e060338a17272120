/*
 * printa() without a format: an empty line, then the entries as at exit;
 * an aggregation printa() printed is not printed again at exit.
 */
BEGIN
{
	@calls["read", 3] = count();
	@calls["read", 3] = count();
	@calls["open", 1] = count();
	@other = sum(42);
	printa(@calls);
	exit(0);
}
