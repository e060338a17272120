/* Too few arguments for a subroutine with an optional one. */
BEGIN
{
	trace(substr("abc"));
}
