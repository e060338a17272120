/* No arithmetic on a void pointer, as DTrace checks it (D_OP_INCOMPAT). */
void *p;

BEGIN
{
	trace(p + 1);
}
