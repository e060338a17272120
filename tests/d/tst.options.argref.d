/* @args: 1234 */
/* @options: -x argref */
/*
 * -x argref: a macro argument no clause uses is not an error (DTrace's
 * tst.argref.d).
 */
#pragma D option quiet

BEGIN
{
	printf("not referenced, not refused\n");
	exit(0);
}
