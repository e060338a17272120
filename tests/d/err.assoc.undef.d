/* An array read before any assignment or declaration: DTrace's message. */
BEGIN
{
	trace(never[1]);
}
