/* @target: bad */
/*
 * copyout() and copyoutstr() are fault-safe: a destination that cannot be
 * written (the read-only string rtprog passes to rt:::once, an unmapped
 * address) is DTrace's BADADDR fault, which ERROR sees with the address,
 * and the program runs on.
 */
/* @options: -w */
#pragma D option quiet

rt$target:::once
{
	s = arg1;
	copyoutstr("x", arg1, 2);
}

rt$target:::once
{
	copyout(alloca(8), 0x10, 8);
}

ERROR
{
	printf("fault %d (BADADDR %d) at %s\n", arg4, DTRACEFLT_BADADDR,
	    arg5 == 0x10 ? "0x10" : arg5 == s ? "the read-only string" : "?");
}
