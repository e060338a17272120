/* @target: ticks 100 2 */
/*
 * Thread-local associative arrays (self->x[k], as DTrace's tst.misc.d):
 * each thread has its own elements under the same keys; a global one with
 * the same name is another array.
 */
#pragma D option quiet

rt$target:::tick
{
	self->x[123, "foo"] += arg0 + 1;
	x[123, "foo"] = 1;
}

rt$target:::tick
/arg1 == 99/
{
	@sums[arg0] = sum(self->x[123, "foo"]);
	@other[arg0] = sum(self->x[456, "bar"]);
}

END
{
	printf("%d\n", x[123, "foo"]);
}
