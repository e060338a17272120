/*
 * A predicate may read a variable its own clause's actions assign first: DTrace
 * cooks a clause's actions before its predicate (illumos's dt_compile_one_clause),
 * so the DTraceToolkit's "/self->last/ { ...; self->last = timestamp; }" idiom
 * compiles. Unset, the variable reads 0 the first time.
 */
#pragma D option quiet

BEGIN
/x == 0/
{
	x = 1;
	printf("x was unset, now %d\n", x);
}

BEGIN
/self->last == 0/
{
	self->last = 5;
	printf("self->last was unset, now %d\n", self->last);
	exit(0);
}
