/*
 * Stores into scratch memory, as the DTrace Guide's alloca() example: a
 * struct's members through a pointer (p->c = 0x42), *q = v, an element
 * (a[3] = htonl(x)), compound assignments and ++ on them, bit-fields, and
 * a string's characters read by index (s[0]).
 */
#pragma D option quiet

struct foo {
	char c;
	short s;
	int i;
	int64_t l;
	int bf : 4;
	char name[8];
};

BEGIN
{
	p = (struct foo *)alloca(sizeof (struct foo));
	p->c = 0x42;
	p->s = -2;
	p->i = 123456;
	p->l = 1234567890123;
	p->bf = -3;
	p->name[0] = 'o';
	p->name[1] = 'k';
	printf("%c %d %d %d %d %s\n", p->c, p->s, p->i, p->l, p->bf, p->name);
	q = (int *)alloca(4 * sizeof (int));
	*q = 77;
	a = (uint32_t *)q;
	a[3] = htonl(0x11223344);
	printf("%d %x %x\n", *q, a[3], ntohl(a[3]));
	p->i += 5;
	p->i++;
	++p->bf;
	*q *= 2;
	printf("%d %d %d\n", p->i, p->bf, *q);
	s = "hello";
	printf("%c%c%c %d\n", s[0], s[4], "xyz"[1], s[5]);
	exit(0);
}
