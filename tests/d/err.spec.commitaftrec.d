/* A clause that commits records nothing before the commit()... */
BEGIN
{
	trace(1);
	commit(1);
}
