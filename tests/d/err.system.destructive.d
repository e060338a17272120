/* system() is destructive: tracing does not start without -w. */
BEGIN
{
	system("echo no");
}
