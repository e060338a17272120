/* Casts to narrower and wider types: truncation, then sign or zero extension. */
#pragma D option quiet

BEGIN
{
	printf("%d %d %d\n", (char)300, (unsigned char)300, (short)70000);
	printf("%d %u\n", (int)4294967295LL, (unsigned int)-1);
	printf("%lld %lld\n", (long long)(char)-1, (long long)(unsigned char)-1);
	printf("%d\n", (int)(char)200 + 0);
	printf("%p\n", (void *)0x1234);
	exit(0);
}
