/* ... and of the same types: DTrace's message and prototype. */
BEGIN
{
	a[1, "x"] = 1;
	trace(a["y", "x"]);
}
