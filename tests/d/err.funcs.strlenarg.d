/* A subroutine's argument of the wrong type: DTrace's message and prototype. */
BEGIN
{
	trace(strlen(1));
}
