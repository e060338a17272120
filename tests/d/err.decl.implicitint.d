/* self x is an int (no type: DTrace's default), so a string is no value of it. */
self x;

BEGIN
{
	self->x = "a string";
	exit(0);
}
