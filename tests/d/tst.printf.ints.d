/*
 * printf() of integers: each conversion at the size of the value's D type
 * (int here) or of the length given, as DTrace prints them.
 */
#pragma D option quiet

BEGIN
{
	printf("%d %i %u %o %x %X\n", 97, 97, 97, 97, 97, 97);
	printf("%d %u %x\n", -1, -1, -1);
	printf("%ld %lu %lx %llx\n", -1, -1, -1, -1);
	printf("%hd %hhd %hu %hhu\n", 70000, 200, -1, -1);
	printf("%d %d\n", 2147483647 + 1, (char)300);
	printf("%p %p\n", 0x1234, 0);
	exit(0);
}
