/*
 * Variables of array types declared with bounds: elements assigned and
 * read, an element's address as a pointer (its arithmetic, and stores
 * through it, as illumos's pointers/tst.ArrayPointer2.d), arrays of
 * structs, a char array that holds a string, sizeof of each.
 */
#pragma D option quiet

int a[5];
struct pt {
	short x, y;
} pts[3];
char buf[16];
self uint64_t hist[4];

BEGIN
{
	a[0] = 100;
	a[1] = 200;
	a[4] = a[0] + a[1];
	p = &a[0];
	p[2] = 300;
	*(p + 3) = 400;
	printf("%d %d %d %d %d\n", a[0], a[1], a[2], a[3], a[4]);
	printf("%d %d\n", &a[4] - &a[1], *p);
	pts[1].x = 7;
	pts[2] = pts[1];
	pts[2].y = -8;
	i = 2;
	printf("%d %d %d\n", pts[i].x, pts[i].y, pts[0].x);
	buf[0] = 'h';
	buf[1] = 'i';
	printf("%s %d\n", buf, strlen(buf));
	self->hist[i]++;
	self->hist[i] += 10;
	printf("%d %d\n", self->hist[2], self->hist[3]);
	printf("%d %d %d %d\n", sizeof (a), sizeof (pts), sizeof (pts[0]), sizeof (self->hist));
	exit(0);
}
