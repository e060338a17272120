/* tracemem()'s size is a constant. */
BEGIN
{
	tracemem(0, timestamp);
}
