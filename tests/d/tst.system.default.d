/* @options: -w */
/*
 * Without -q, the command's output follows the probe's line, which dtrace
 * ends after the record: an empty line after it.
 */
BEGIN
{
	system("echo hi");
	exit(0);
}
