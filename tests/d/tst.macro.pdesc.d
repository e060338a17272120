/* @target: bad */
/* @args: once 3 */
/* Macro arguments in a probe description and a predicate. */
#pragma D option quiet

rt$target:::$1
/arg0 > $2/
{
	printf("%s %d\n", probename, arg0);
}
