/* An argument that was not given. */
BEGIN
{
	trace($1);
}
