/* @options: -L lib-clause */
BEGIN
{
	exit(0);
}
