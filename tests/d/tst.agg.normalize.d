/* normalize() divides the printed values, denormalize() undoes it. */
#pragma D option quiet

BEGIN
{
	@bytes["a"] = sum(1000);
	@bytes["b"] = sum(2500);
	@q = quantize(5);
	@q = quantize(5);
	@q = quantize(5);
	@q = quantize(5);
	@back = sum(100);
	normalize(@bytes, 10);
	normalize(@q, 2);
	normalize(@back, 10);
	denormalize(@back);
	exit(0);
}
