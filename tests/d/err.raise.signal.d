/* @options: -w */
/* A signal past the last is an illegal operation (in BEGIN: dtrace's own process). */
BEGIN
{
	raise(100);
}

BEGIN
{
	exit(1);
}
