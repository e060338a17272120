/* @target: ticks 3 1 */
/*
 * Every size option DTrace takes, with its suffixes (k m g t, either case,
 * or none), at sizes smaller than udtrace's own least: each is raised to
 * what the program needs, and the program runs as with the defaults.
 */
#pragma D option quiet
#pragma D option bufsize=4k
#pragma D option aggsize=1K
#pragma D option dynvarsize=1k
#pragma D option specsize=512
#pragma D option scratchsize=2k
#pragma D option strsize=0x20

rt$target:::tick
{
	a[arg1] = arg1 + 1;
	@n = count();
	s = strjoin("seq ", lltostr(arg1));
	spec = speculation();
}

rt$target:::tick
{
	speculate(spec);
	printf("%s, a = %d\n", s, a[arg1]);
}

rt$target:::tick
{
	commit(spec);
}

END
{
	printa("%@d ticks\n", @n);
}
