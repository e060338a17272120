BEGIN
{
	trace(timestamp->x);
}
