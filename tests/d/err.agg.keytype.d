BEGIN
{
	@a["x"] = count();
	@a[1] = count();
}
