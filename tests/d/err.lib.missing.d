/* @options: -L lib-baddep */
BEGIN
{
	exit(0);
}
