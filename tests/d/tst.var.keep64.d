/*
 * A variable keeps the whole 64-bit value stored in it, whatever its
 * declared type, as illumos's STV instructions store the register: the
 * DTraceToolkit's "self int t; self->t = timestamp;" then "timestamp -
 * self->t" gives the time between (here well under a second), where a
 * narrowed int would give a huge number. A record narrows (printf() of a
 * char prints its low byte); arithmetic uses the whole value.
 */
#pragma D option quiet

self int t;
int g;
this int l;

BEGIN
{
	self->t = timestamp;
	g = timestamp;
	this->l = timestamp;
	printf("%d %d %d\n", timestamp - self->t < 1000000000, timestamp - g < 1000000000,
	    timestamp - this->l < 1000000000);
	self->c = (char)0;
	self->c = 300;
	printf("%d %d\n", self->c, self->c + 0);
	exit(0);
}
