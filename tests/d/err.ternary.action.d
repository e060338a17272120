/*
 * A ?: whose condition is known only when the probe fires cannot hold an
 * action: DTrace's D_OP_ACT.
 */
BEGIN
{
	x = 1;
	x ? printf("no\n") : 1;
}
