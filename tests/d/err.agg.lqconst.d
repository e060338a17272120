BEGIN
{
	@a = lquantize(1, timestamp, 10, 1);
}
