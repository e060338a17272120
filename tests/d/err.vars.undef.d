BEGIN
/self->never/
{
	exit(0);
}
