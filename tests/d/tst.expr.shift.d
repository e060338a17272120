/* Shifts: of the left operand's promoted type; >> of a signed value is arithmetic. */
#pragma D option quiet

BEGIN
{
	printf("%d %d %d\n", 1 << 4, 256 >> 4, -256 >> 4);
	printf("%u\n", 0x80000000U >> 31);
	printf("%lld\n", 1LL << 40);
	printf("%x %x %x\n", 0xf0 & 0x3c, 0xf0 | 0x0f, 0xff ^ 0x0f);
	printf("%x\n", ~0 & 0xffff);
	exit(0);
}
