/* @args: foo */
/* $1 of an argument that is not an integer is an identifier (use $$1). */
BEGIN
{
	trace($1);
}
