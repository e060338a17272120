BEGIN
{
	self->p = (int *)0x1000;
	self->p = 5;
}
