BEGIN
{
	@a = sum("a string");
}
