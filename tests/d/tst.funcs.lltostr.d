/*
 * lltostr() in base 10 (negative values signed) and in other bases (as
 * DTrace: "0x" before hexadecimal, "0" before octal, two's complement).
 */
#pragma D option quiet

BEGIN
{
	printf("%s %s %s %s\n", lltostr(0), lltostr(42), lltostr(-42),
	    lltostr(-9223372036854775807 - 1));
	printf("%s %s %s %s\n", lltostr(255, 16), lltostr(0, 16), lltostr(8, 8), lltostr(0, 8));
	printf("%s %s %s\n", lltostr(5, 2), lltostr(35, 36), lltostr(-1, 16));
	exit(0);
}
