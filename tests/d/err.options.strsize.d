/* A string holds at least its NUL and one byte: strsize=1 is refused. */
#pragma D option strsize=1

BEGIN
{
	exit(0);
}
