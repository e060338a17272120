/*
 * A dynamic variable space too small for anything (DTrace's tests give
 * dynvarsize=15) holds one element, as DTrace's dtrace_dstate_init() raises
 * it to: the first store is kept, the next is a drop (reported on stderr).
 */
#pragma D option quiet
#pragma D option dynvarsize=15

BEGIN
{
	a[1] = 1;
	a[2] = 2;
	printf("a[1] = %d, a[2] = %d\n", a[1], a[2]);
	exit(0);
}
