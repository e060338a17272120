/* inet_ntoa6() of NULL: the address cannot be read. */
#pragma D option quiet

BEGIN
{
	trace(inet_ntoa6(NULL));
}

BEGIN
{
	exit(1);
}
