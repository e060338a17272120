/*
 * strtoll(): blanks, a sign, digits of the base (a "0x" prefix in base
 * 16), up to the first that is not one.
 */
#pragma D option quiet

BEGIN
{
	printf("%d %d %d %d\n", strtoll("123"), strtoll("  -45xyz"), strtoll("+7"), strtoll(""));
	printf("%d %d %d %d\n", strtoll("ff", 16), strtoll("0x1F", 16), strtoll("777", 8),
	    strtoll("zz", 36));
	printf("%d\n", strtoll("9223372036854775807"));
	exit(0);
}
