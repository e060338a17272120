/*
 * trace() prints by the value's size as DTrace does: 1 and 2 bytes
 * unsigned, 4 and 8 signed, each in its column width; strings as %-33s.
 */
BEGIN
{
	trace((char)-1);
	trace((short)-1);
	trace(-1);
	trace(-1LL);
	trace("text");
	exit(0);
}
