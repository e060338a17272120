/*
 * count() without and with keys, printed at exit after the empty line that
 * ends the trace: sorted by value, then by key.
 */
#pragma D option quiet

BEGIN
{
	@ = count();
	@ = count();
	@ = count();
	@calls["open"] = count();
	@calls["read"] = count();
	@calls["read"] = count();
	@calls["close"] = count();
	printf("traced\n");
	exit(0);
}
