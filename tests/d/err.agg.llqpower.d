BEGIN
{
	/* 80 steps: 10 divides it, but it divides no power of 10 */
	@a = llquantize(1, 10, 2, 6, 80);
}
