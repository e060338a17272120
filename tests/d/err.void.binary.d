/* @options: -x errtags */
/* A binary operator of an action: DTrace names the type the operator wants. */
BEGIN
{
	x = trace(1) << 2;
}
