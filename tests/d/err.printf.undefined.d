/* An undefined conversion. */
BEGIN
{
	printf("%Z", 1);
}
