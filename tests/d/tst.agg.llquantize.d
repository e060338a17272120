/*
 * llquantize(value, 10, 0, 2, 10): below 1, then ten buckets for each power
 * of ten from 1 to 100, then 1000 and above.
 */
#pragma D option quiet

BEGIN
{
	@ll = llquantize(0, 10, 0, 2, 10);
	@ll = llquantize(5, 10, 0, 2, 10);
	@ll = llquantize(55, 10, 0, 2, 10);
	@ll = llquantize(59, 10, 0, 2, 10);
	@ll = llquantize(555, 10, 0, 2, 10);
	@ll = llquantize(5555, 10, 0, 2, 10);
	@ll = llquantize(-3, 10, 0, 2, 10);
	@ll2 = llquantize(33, 2, 3, 5, 4);
	@ll2 = llquantize(20, 2, 3, 5, 4);
	exit(0);
}
