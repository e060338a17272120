BEGIN
{
	printf("%d\n", 1);
	{ trace(1); }
}
