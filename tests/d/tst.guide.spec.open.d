/* @target: opens */
/*
 * The DTrace Guide's first speculation example ("Speculative Tracing",
 * "Using a Speculation" and "Committing a Speculation"): an open(2)'s path
 * is traced speculatively at its entry, its errno at its return, and the
 * whole is committed when open(2) failed and discarded when it succeeded.
 * In a process: syscall::open:entry and :return are the test program's
 * rt:::open-entry and rt:::open-return around its open(2)s of
 * /proc/self/status, /nonexistent/file and /proc/self/stat; stringof() of
 * copyinstr() is left out, copyinstr() giving a string already.
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

rt$target:::open-return
/self->spec/
{
	/*
	 * To indicate that this return should be traced speculatively, call
	 * speculate() with the same speculation; errno is traced with it.
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
