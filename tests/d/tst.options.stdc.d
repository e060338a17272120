/* @options: -C -X s */
/*
 * -X s: cpp in K&R mode, where __STDC__ is not defined (DTrace's
 * tst.stdc-s.d); -X a, c and t define it.
 */
#pragma D option quiet

BEGIN
{
#ifdef __STDC__
	printf("ISO C\n");
#else
	printf("K&R C\n");
#endif
	exit(0);
}
