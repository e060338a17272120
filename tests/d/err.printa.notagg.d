BEGIN
{
	printa(1);
}
