/* An element takes values of the array's type (DTrace's err.D_OP_INCOMPAT.dupgtype.d). */
BEGIN
{
	a[1] = 1;
	a[2] = "two";
}
