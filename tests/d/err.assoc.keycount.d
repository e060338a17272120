/* An array's keys are as many as at its first use. */
BEGIN
{
	a[1, "x"] = 1;
	trace(a[1]);
}
