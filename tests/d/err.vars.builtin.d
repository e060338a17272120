BEGIN
{
	timestamp = 1;
}
