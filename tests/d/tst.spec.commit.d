/*
 * speculation() hands out a speculation; what a clause records after
 * speculate() goes into it, and appears where commit() copies it into the
 * principal buffer: after what was recorded in between.
 */
#pragma D option quiet

BEGIN
{
	self->spec = speculation();
	printf("Speculation ID: %d\n", self->spec);
}

BEGIN
{
	speculate(self->spec);
	printf("speculative, recorded first\n");
}

BEGIN
{
	printf("principal, recorded second\n");
}

BEGIN
{
	commit(self->spec);
}

BEGIN
{
	exit(0);
}
