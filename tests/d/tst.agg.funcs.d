/* sum, avg, min and max, with integer keys; avg() truncates as DTrace's does. */
#pragma D option quiet

BEGIN
{
	@sum[1] = sum(10);
	@sum[1] = sum(-3);
	@sum[2] = sum(5);
	@avg[1] = avg(10);
	@avg[1] = avg(21);
	@avg[2] = avg(-7);
	@min[1] = min(4);
	@min[1] = min(-9);
	@min[2] = min(0);
	@max[1] = max(4);
	@max[1] = max(-9);
	@max[2] = max(0);
	exit(0);
}
