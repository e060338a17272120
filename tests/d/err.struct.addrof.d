/* A D variable has no address: & of one is DTrace's D_ADDROF_VAR (of an element, it is fine). */
struct rec {
	int n;
} var;

BEGIN
{
	ptr = &var;
}
