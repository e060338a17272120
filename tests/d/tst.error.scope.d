/*
 * A fault ends its clause only (Oracle's tst.clause_scope-begin-ended.d):
 * ERROR fires, then the next BEGIN clause runs.
 */
#pragma D option quiet

ERROR
{
	printf("Error fired\n");
}

BEGIN
{
	trace(*(int *)NULL);
}

BEGIN
{
	printf("Clause executed\n");
	exit(0);
}
