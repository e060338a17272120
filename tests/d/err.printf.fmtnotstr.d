/* The format is not a string constant. */
BEGIN
{
	printf(1);
}
