/* printa() conversions take the keys in order, %@ the value; widths and flags apply. */
#pragma D option quiet

BEGIN
{
	@bytes["read", 3] = sum(100);
	@bytes["write", 4] = sum(7);
	@bytes["read", 5] = sum(1000);
	printa("%-8s fd %d: %@8d bytes\n", @bytes);
	printa("%@d <- %s\n", @bytes);
	exit(0);
}
