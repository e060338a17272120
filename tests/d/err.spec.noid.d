/* speculate() takes the speculation's ID. */
BEGIN
{
	speculate();
}
