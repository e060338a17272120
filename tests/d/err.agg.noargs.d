BEGIN
{
	@a = max();
}
