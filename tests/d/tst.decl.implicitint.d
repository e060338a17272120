/*
 * A declaration with a storage class and no type declares an int, as C's
 * and DTrace's declarations do: self x is a thread-local int, this y a
 * clause-local int.
 */
#pragma D option quiet

self x;
this y;

BEGIN
{
	self->x = 5;
	this->y = self->x * 2;
	printf("%d %d %d %d\n", self->x, this->y, sizeof (self->x), sizeof (this->y));
	exit(0);
}
