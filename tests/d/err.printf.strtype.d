/* An integer where %s wants a string (a pointer needs copyinstr()). */
BEGIN
{
	printf("%s\n", 42);
}
