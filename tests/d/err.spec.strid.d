/* An ID is an integer. */
BEGIN
{
	commit("one");
}
