/*
 * quantize(): power-of-two buckets, the rows from one below the first used
 * to one above the last, '@' bars of 40 columns for all the counts.
 */
#pragma D option quiet

BEGIN
{
	@q = quantize(0);
	@q = quantize(1);
	@q = quantize(2);
	@q = quantize(3);
	@q = quantize(1000);
	@q = quantize(1023);
	@q = quantize(1024);
	@q = quantize(-5);
	@neg = quantize(-1);
	@neg = quantize(-2);
	@neg = quantize(-3);
	exit(0);
}
