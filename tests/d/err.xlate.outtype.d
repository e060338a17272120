/* A translator's output type is a struct or a union (DTrace's D_XLATE_SOU). */
struct in {
	int i;
};

translator int < struct in *x > {
};

BEGIN
{
	exit(0);
}
