/*
 * A translator is checked where it is declared, as DTrace checks it: a
 * member whose expression does not fit it is an error even if no clause
 * translates anything.
 */
struct in {
	int i;
	char c;
};

struct out {
	int i;
	char *p;
};

translator struct out < struct in *x > {
	i = x->i;
	p = x->c;
};

BEGIN
{
	exit(0);
}
