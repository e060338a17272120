/* @options: -w */
/* Destructive actions are never speculative. */
BEGIN
{
	speculate(1);
	system("echo no");
}
