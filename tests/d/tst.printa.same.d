/*
 * One aggregation named several times in a printa(), and a format that
 * takes its value several times (illumos's multiaggs/tst.same.d): each %@
 * is its value.
 */
#pragma D option quiet

BEGIN
{
	@ = sum(90904);
	@k["a"] = sum(1);
	@k["b"] = sum(2);
	printa("%@d %@d %@d\n", @, @, @);
	printa("%@d %@d %@d\n", @);
	printa("%s %@d %@d\n", @k, @k);
	printa(@k, @k);
	exit(0);
}
