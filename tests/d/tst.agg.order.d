/*
 * Aggregations print in the order of their first use in the script, whatever
 * clause fires first; a clause that only aggregates prints no probe line.
 */
BEGIN
{
	@second = count();
	@first = count();
}

BEGIN
{
	@zero = sum(7);
}

END
{
	@first = count();
}

BEGIN
{
	exit(0);
}
