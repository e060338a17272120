BEGIN
/never > 0/
{
	exit(0);
}
