/* speculation() takes no argument. */
BEGIN
{
	x = speculation(1);
}
