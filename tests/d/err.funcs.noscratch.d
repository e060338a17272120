/* @options: -x scratchsize=64 */
/*
 * A result that does not fit in the scratch space faults ("out of scratch
 * space", as DTrace says), and only that clause is lost.
 */
#pragma D option quiet

BEGIN
{
	printf("%s\n", strjoin("0123456789012345678901234567890123456789", "0123456789012345678901234567890123456789"));
}

BEGIN
{
	printf("%s\n", strjoin("this ", "fits"));
	exit(1);
}
