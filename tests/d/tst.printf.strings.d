/* @target: bad */
/*
 * printf() of strings: one copied from the traced program (copyinstr), the
 * probe's names, constants, %S's escapes, and %Y.
 */
#pragma D option quiet

rt$target:::once
{
	printf("%s:%s:%s %d \"%s\"\n", probemod, probefunc, probename, arg0, copyinstr(arg1));
	printf("%S|%s\n", "tab\there \"q\" \\ \001", "plain");
	printf("%Y|%Y\n", (int64_t)0, 1700000000000000000);
}
