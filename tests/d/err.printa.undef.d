BEGIN
{
	printa(@nothing);
}
