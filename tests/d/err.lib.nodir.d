/* @options: -L no-such-dir */
BEGIN
{
	exit(0);
}
