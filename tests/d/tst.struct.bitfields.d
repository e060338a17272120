/*
 * Bit-fields of a variable: stored and read back with their sign (Oracle's
 * bitfields/tst.BasicSigned.d and tst.BasicUnsigned.d), laid out as C
 * compilers lay them out (a field does not straddle a unit of its type: the
 * output is what gcc gives a C program doing the same),
 * and offsetof() of the members around them.
 */
#pragma D option quiet

struct bits {
	int a : 3;
	int b : 7;
	int c : 14;
	long d : 35;
	int e : 22;
	unsigned int f : 5;
	short g;
} var;

BEGIN
{
	var.a = 3;
	var.b = 0x3f;
	var.c = 0x1fff;
	var.d = 0x3ffffffff;
	var.e = 0x1fffff;
	var.f = 31;
	var.g = -1;
	printf("%d %d %d %d %d %d %d\n", var.a, var.b, var.c, var.d, var.e, var.f, var.g);
	/* the sign bit set: negative, but for the unsigned field, which wraps */
	var.a = 7;
	var.b = 0x75;
	var.c = 0x3555;
	var.d = 0x755555555;
	var.e = 0x355555;
	var.f = 33;
	printf("%d %d %d %d %d %d %d\n", var.a, var.b, var.c, var.d, var.e, var.f, var.g);
	var.a++;
	var.f += 30;
	printf("%d %d\n", var.a, var.f);
	printf("%d %d\n", sizeof (struct bits), offsetof(struct bits, g));
	exit(0);
}
