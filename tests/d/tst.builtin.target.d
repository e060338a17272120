/* @target: bad */
/*
 * Builtins in the target: the probe variables of each probe (constants
 * there), args[] typed from the probe table, and pid as $target.
 */
#pragma D option quiet

rt$target:::once
{
	printf("%s %s %s\n", probemod, probefunc, probename);
	printf("%d %d %d\n", args[0], sizeof(args[0]), pid == $target);
	printf("%s\n", copyinstr(arg1));
}

rt$target:::bad
/arg0 != 0 && arg0 != 0x10/
{
	printf("%d\n", *args[0]);
}
