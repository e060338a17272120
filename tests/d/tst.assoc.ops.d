/*
 * The assignment operators and ++/-- on elements, prefix and postfix; an
 * element's first use with ++ or += declares an array of int.
 */
#pragma D option quiet

BEGIN
{
	c["a"]++;
	c["a"]++;
	x = c["b"]++;
	y = ++c["b"];
	d[1] += 10;
	d[1] -= 3;
	d[1] *= 6;
	d[1] /= 2;
	d[1] %= 8;
	d[1] <<= 4;
	d[1] |= 1;
	z = --d[1];
	printf("%d %d %d %d %d %d\n", c["a"], c["b"], x, y, d[1], z);
	exit(0);
}
