/* A library may only declare: this one has a clause (err.lib.clause.d). */
BEGIN
{
	trace(1);
}
