/*
 * The conversions of DTrace's printf() dictionary beyond C's usual ones: %C
 * (a character escaped as %S escapes), %T (RFC 822; TZ is UTC here), %lc and
 * %wc (wide characters), lengths as type checks (%hx of a short prints it
 * at its size), and '?' (a pointer's width).
 */
#pragma D option quiet

BEGIN
{
	printf("%C|%C|%C|%c\n", 'a', '\n', '\001', 'z');
	printf("%T|%Y\n", (int64_t)1700000000000000000, (int64_t)1700000000000000000);
	printf("%lc%wc\n", (int)'o', (int)'k');
	printf("%hx %hu %llx %lo\n", (short)-2, (unsigned short)65535, 0x1122334455667788LL,
	    (unsigned long)8);
	printf("[%?p] [%-?x]\n", 0x1234, 0x5678);
	exit(0);
}
