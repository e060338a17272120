/* Integer arithmetic with C's rules: division truncates toward zero, % has the sign of the dividend. */
#pragma D option quiet

BEGIN
{
	printf("%d %d %d %d\n", 7 + 2, 7 - 9, 7 * -3, 7 / 2);
	printf("%d %d %d %d\n", -7 / 2, 7 / -2, -7 % 3, 7 % -3);
	printf("%d %d\n", 2147483647 + 1, -2147483647 - 1);
	printf("%lld %lld\n", 2147483647LL + 1, 9223372036854775807LL + 1);
	printf("%u %lu\n", 0U - 1, 0UL - 1);
	exit(0);
}
