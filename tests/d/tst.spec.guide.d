/* @target: opens */
/*
 * The DTrace Guide's specopen.d ("Speculative Tracing", "Speculation
 * Example"): the whole code path of an open(2) that fails, and nothing of
 * those that succeed. In a process: syscall::open:entry and :return are
 * rt:::open-entry and rt:::open-return around open(2) in the test program,
 * fbt::: is its rt:::step probes in between; -F (flowindent) is left out,
 * and so is stringof() of a copyinstr(), which is a string already.
 */
rt$target:::open-entry
{
	/*
	 * The call to speculation() creates a new speculation.  If this fails,
	 * dtrace(1M) will generate an error message indicating the reason for
	 * the failed speculation(), but subsequent speculative tracing will be
	 * silently discarded.
	 */
	self->spec = speculation();
	speculate(self->spec);

	/*
	 * Because this printf() follows the speculate(), it is being
	 * speculatively traced; it will only appear in the data buffer if the
	 * speculation is subsequently commited.
	 */
	printf("%s", copyinstr(arg0));
}

rt$target:::step
/self->spec/
{
	/*
	 * A speculate() with no other actions speculates the default action:
	 * tracing the EPID.
	 */
	speculate(self->spec);
}

rt$target:::open-return
/self->spec/
{
	/*
	 * To balance the output with the -F option, we want to be sure that
	 * every entry has a matching return.  Because we speculated the
	 * open entry above, we want to also speculate the open return.
	 * This is also a convenient time to trace the errno value.
	 */
	speculate(self->spec);
	trace(errno);
}

rt$target:::open-return
/self->spec && errno != 0/
{
	/*
	 * If errno is non-zero, we want to commit the speculation.
	 */
	commit(self->spec);
	self->spec = 0;
}

rt$target:::open-return
/self->spec && errno == 0/
{
	/*
	 * If errno is not set, we discard the speculation.
	 */
	discard(self->spec);
	self->spec = 0;
}
