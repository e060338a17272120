/*
 * specsize sets the size of a speculative buffer: a record that does not
 * fit is dropped (dtrace reports "speculative drops"), and the ones that
 * did are committed all the same. Each record here is 32 bytes (the record
 * header and one value), so a 64-byte buffer holds two.
 */
#pragma D option quiet
#pragma D option specsize=64

BEGIN
{
	spec = speculation();
}

BEGIN
{
	speculate(spec);
	printf("%d\n", 1);
}

BEGIN
{
	speculate(spec);
	printf("%d\n", 2);
}

BEGIN
{
	speculate(spec);
	printf("%d\n", 3);
}

BEGIN
{
	commit(spec);
}

BEGIN
{
	exit(0);
}
