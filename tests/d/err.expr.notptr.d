BEGIN
{
	trace(*timestamp);
}
