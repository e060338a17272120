/* @options: -w */
/*
 * system(format, ...) (destructive: -w) formats as printf() does and runs
 * the command when dtrace reads the record, after flushing what it printed
 * before, so the command's output comes in its place.
 */
#pragma D option quiet

BEGIN
{
	printf("before\n");
	system("echo %s %d '%%'", "hello", 42);
	printf("after\n");
}

BEGIN
{
	exit(0);
}
