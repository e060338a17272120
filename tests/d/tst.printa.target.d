/* @target: ticks 100 1 */
/* printa() in a probe of the target prints the totals so far, then clear() starts them again. */
#pragma D option quiet

rt$target:::tick
{
	@fires = count();
	@sum = sum(arg1);
}

rt$target:::tick
/arg1 == 99/
{
	printa("fires %@d, ", @fires);
	printa("sum %@d\n", @sum);
	clear(@fires);
}
