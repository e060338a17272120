/* An inline defined in terms of itself. */
inline int loop = loop + 1;

BEGIN
{
	trace(loop);
}
