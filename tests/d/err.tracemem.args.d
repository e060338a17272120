/* tracemem() takes three arguments at most. */
BEGIN
{
	tracemem(0, 4, 4, 4);
}
