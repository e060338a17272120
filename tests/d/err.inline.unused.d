/*
 * An inline is checked where it is declared, as DTrace checks it: one of
 * the wrong type is an error even if no clause uses it.
 */
inline int unused = "a string";

BEGIN
{
	exit(0);
}
