/*
 * Declared associative arrays: the declaration gives the keys' and the
 * value's types, before any clause uses them.
 */
#pragma D option quiet

int counts[string, int];
string label[int];
self char small[int];

BEGIN
{
	counts["a", 1] = 5;
	counts["a", 2] = counts["a", 1] * 2;
	label[7] = "seven";
	self->small[1] = 300;
	printf("%d %d %d %s %d\n", counts["a", 1], counts["a", 2], counts["b", 1], label[7],
	    self->small[1]);
	exit(0);
}
