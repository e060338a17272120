/*
 * The usual arithmetic conversions: char and short promote to int; int and
 * unsigned int give unsigned int; a wider type wins.
 */
#pragma D option quiet

BEGIN
{
	printf("%d\n", (char)100 + (char)100);
	printf("%u\n", -1 + 0U);
	printf("%d\n", -1 < 0U);
	printf("%d\n", -1 < 0);
	printf("%d\n", (unsigned char)255 + 1);
	printf("%lld\n", (long long)-1 * 2147483647);
	printf("%d\n", sizeof((char)1 + (char)1));
	printf("%d\n", sizeof(1L + 1));
	exit(0);
}
