/* @target: bad */
/* String keys: copied in from the target, and constants of the probe. */
#pragma D option quiet

rt$target:::once
{
	@what[copyinstr(arg1), probefunc] = sum(arg0);
}

rt$target:::bad
{
	@what["bad", probefunc] = sum(1);
}
