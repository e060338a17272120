/*
 * rand() gives pseudo-random ints: an int's size, and not the same value
 * twice in a row (xorshift128+ does not repeat itself before 2^128 - 1).
 */
#pragma D option quiet

BEGIN
{
	a = rand();
	b = rand();
	c = rand();
	printf("%d %d %d\n", sizeof(rand()), a != b && b != c, (a | b | c) != 0);
	exit(0);
}
