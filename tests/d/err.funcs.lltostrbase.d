/* lltostr() in base 1: an illegal operation, at fire time, as in DTrace. */
#pragma D option quiet

BEGIN
{
	this->base = 1;
	printf("%s\n", lltostr(10, this->base));
}

BEGIN
{
	exit(1);
}
