/* An inline is not a variable. */
inline int LIMIT = 10;

BEGIN
{
	LIMIT = 3;
}
