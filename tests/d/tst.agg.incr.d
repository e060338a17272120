/* The increment argument of quantize(), lquantize() and llquantize(). */
#pragma D option quiet

BEGIN
{
	@q = quantize(4, 3);
	@q = quantize(1, 1);
	@l = lquantize(2, 0, 4, 1, 5);
	@ll = llquantize(7, 10, 0, 1, 10, 2);
	exit(0);
}
