/*
 * A clause with speculate() alone speculates the default action: the
 * enabled probe's line, with no data; committed, it prints as any record
 * (before the line of the exit() clause).
 */
BEGIN
{
	spec = speculation();
}

BEGIN
{
	speculate(spec);
}

BEGIN
{
	commit(spec);
}

BEGIN
{
	exit(0);
}
