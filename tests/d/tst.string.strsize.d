/*
 * strsize bounds every string: assignments and subroutines cut at
 * strsize - 1 bytes, as DTrace does.
 */
#pragma D option quiet
#pragma D option strsize=8

BEGIN
{
	s = "0123456789";
	printf("%s %d\n", s, strlen(s));
	printf("%s\n", substr("abcdefghij", 2));
	printf("%s\n", toupper("abcdefghij"));
	names["x"] = "abcdefghij";
	printf("%s\n", names["x"]);
	trace("abcdefghij");
	exit(0);
}
