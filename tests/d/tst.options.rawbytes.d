/*
 * -x rawbytes: trace() of a string prints the record's bytes as
 * tracemem() does (strsize bytes, the string then NULs), as DTrace's
 * dt_print_bytes() does for any byte record; integers are not affected.
 */
#pragma D option quiet
#pragma D option rawbytes
#pragma D option strsize=13

BEGIN
{
	x = "1234567890123";
	trace(x);
	trace(substr(x, 0, 4));
	trace("ab");
	trace(12);
	exit(0);
}
