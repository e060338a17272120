/*
 * speculate(0) (a failed speculation()) has no ill effect: the rest of its
 * clause does not run, so neither the printf() nor the increment after it
 * happen, and the other clauses go on.
 */
#pragma D option quiet

BEGIN
{
	self->spec = speculation();
	self->spec = speculation();
	self->flag = 0;
	printf("Speculative buffer ID: %d\n", self->spec);
}

BEGIN
{
	speculate(self->spec);
	self->flag++;
	printf("not recorded\n");
}

BEGIN
{
	printf("flag: %d\n", self->flag);
	exit(0);
}
