BEGIN
{
	a[] = 1;
}
