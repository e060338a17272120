/*
 * An ID past the speculations there are (nspec) is an illegal operation:
 * the clause stops, with DTrace's error, and tracing goes on.
 */
BEGIN
{
	commit(2);
}

BEGIN
{
	exit(1);
}
