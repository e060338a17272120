/* A translator may only define members of its output type (DTrace's D_XLATE_MEMB). */
struct in {
	int i;
};

struct out {
	int i;
};

translator struct out < struct in *x > {
	i = x->i;
	j = x->i;
};

BEGIN
{
	exit(0);
}
