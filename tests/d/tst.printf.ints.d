/*
 * printf() of integers: each conversion at the size of the value's D type
 * (int here), as DTrace prints them; a length (%ld, %hu) takes a value of
 * its type's size and sign only.
 */
#pragma D option quiet

BEGIN
{
	printf("%d %i %u %o %x %X\n", 97, 97, 97, 97, 97, 97);
	printf("%d %u %x\n", -1, -1, -1);
	printf("%ld %lu %lx %llx\n", (long)-1, (unsigned long)-1, (long)-1, (long long)-1);
	printf("%hd %hu %hx %lld %llu\n", (short)70000, (unsigned short)-1, (short)-1,
	    (int64_t)-1, timestamp * 0);
	printf("%d %d\n", 2147483647 + 1, (char)300);
	printf("%p %p\n", 0x1234, 0);
	exit(0);
}
