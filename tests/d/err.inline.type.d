/* An inline's expression must have its type. */
inline int i = "string";

BEGIN
{
	trace(i);
}
