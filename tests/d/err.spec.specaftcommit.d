/* A clause that commits does not speculate after it. */
BEGIN
{
	commit(1);
	speculate(2);
}
