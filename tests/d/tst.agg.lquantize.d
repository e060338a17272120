/* lquantize(): linear buckets, with the ones below the base and at or above the limit. */
#pragma D option quiet

BEGIN
{
	@l = lquantize(-1, 0, 100, 10);
	@l = lquantize(0, 0, 100, 10);
	@l = lquantize(9, 0, 100, 10);
	@l = lquantize(10, 0, 100, 10);
	@l = lquantize(55, 0, 100, 10);
	@l = lquantize(55, 0, 100, 10);
	@l = lquantize(100, 0, 100, 10);
	@l = lquantize(1000, 0, 100, 10);
	@one = lquantize(3, 1, 5);
	exit(0);
}
