/* @options: -x errtags */
/* -x errtags, of a syntax error. */
BEGIN
{
	trace(1 +);
}
