/*
 * The DTrace Guide's error.d (the dtrace provider, "ERROR Probe"): a NULL
 * dereference in BEGIN fires ERROR, whose line prints like any probe's (ID
 * 3, dtrace's third probe); dtrace still reports the error on stderr. The
 * Guide's script then waits for ^C: this one exits from a second ERROR
 * clause.
 */
BEGIN
{
	*(char *)NULL;
}

ERROR
{
	printf("Hit an error!");
}

ERROR
{
	exit(0);
}
