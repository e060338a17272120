/*
 * A '*' width in printa() takes a key, as any conversion does (illumos's
 * printa/tst.dynwidth.d); a negative one left-justifies.
 */
#pragma D option quiet

BEGIN
{
	@[10, 100] = sum(1);
	@[-10, 200] = sum(2);
	@c[(char)-6, 300] = sum(3);

	printa("-->%-*d<--\n", @);
	printa("-->%*d<--\n", @);
	printa("-->%*d<--\n", @c);
	printa("-->%.*d|%@d<--\n", @);
	exit(0);
}
