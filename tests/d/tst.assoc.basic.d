/*
 * Associative arrays: integer, string and tuple keys; an element never set
 * reads 0; storing replaces; storing 0 deletes (and the element reads 0
 * again); keys of one array do not meet another's.
 */
#pragma D option quiet

BEGIN
{
	a[1] = 10;
	a[2] = 20;
	a[1] = 11;
	b[1] = 99;
	s["one"] = 1;
	s["two"] = 2;
	t[1, "x"] = 100;
	t[1, "y"] = 200;
	t[2, "x"] = 300;
	printf("%d %d %d %d\n", a[1], a[2], a[3], b[1]);
	printf("%d %d %d\n", s["one"], s["two"], s["three"]);
	printf("%d %d %d %d\n", t[1, "x"], t[1, "y"], t[2, "x"], t[2, "y"]);
	a[1] = 0;
	t[1, "y"] = 0;
	printf("%d %d %d %d\n", a[1], a[2], t[1, "x"], t[1, "y"]);
	a[1] = 12;
	printf("%d\n", a[1]);
	exit(0);
}
