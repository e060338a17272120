/* An integer variable takes no string (DTrace's err.D_OP_INCOMPAT.this.d). */
this int x;

BEGIN
{
	this->x = "dummy";
	exit(0);
}
