/* strchr() takes a char: a string is not one. */
BEGIN
{
	trace(strchr("abc", "b"));
}
