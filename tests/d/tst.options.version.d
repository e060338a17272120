/*
 * -x version takes DTrace's versions of D, with or without a micro
 * number (set twice to the same one is not a conflict).
 */
#pragma D option version=1.13
#pragma D option version=1.13.0
#pragma D option quiet

BEGIN
{
	printf("D 1.13\n");
	exit(0);
}
