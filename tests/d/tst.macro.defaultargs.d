/* @args: 5 */
/* defaultargs: an unset $2 is 0 and $$3 is "". */
#pragma D option quiet
#pragma D option defaultargs

BEGIN
{
	printf("%d %d [%s]\n", $1, $2, $$3);
	exit(0);
}
