/*
 * discard() throws a speculation's records away, and frees it: the next
 * speculation() is given the same buffer, empty. (The Guide: "Discarding a
 * Speculation".)
 */
#pragma D option quiet

BEGIN
{
	self->spec = speculation();
	printf("first: %d\n", self->spec);
}

BEGIN
{
	speculate(self->spec);
	printf("never printed\n");
}

BEGIN
{
	discard(self->spec);
}

BEGIN
{
	self->spec = speculation();
	printf("second: %d\n", self->spec);
}

BEGIN
{
	speculate(self->spec);
	printf("printed once\n");
}

BEGIN
{
	commit(self->spec);
}

BEGIN
{
	exit(0);
}
