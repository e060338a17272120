/* Too many arguments. */
BEGIN
{
	trace(strjoin("a", "b", "c"));
}
