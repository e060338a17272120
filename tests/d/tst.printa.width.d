/*
 * A width on printa()'s %@ conversion, before or after the '@' (DTrace
 * reads flags, widths and '@' in any order), and a precision.
 */
#pragma D option quiet

BEGIN
{
	@a[1] = sum(5);
	@a[22] = sum(-7);
	printa("%3d|%8@d|%-8@d|%@8d|%-@8d|%08@d|%@.3d|\n", @a);
	printf("%?p|%-?p|\n", 16, 32);
	exit(0);
}
