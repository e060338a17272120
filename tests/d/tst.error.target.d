/* @target: bad */
/*
 * Faults in the traced process fire ERROR in dtrace, each once, in the
 * faulting thread's context (pid), with the EPID of the clause that
 * faulted and the address it could not read; rtprog's bad mode fires
 * rt:::bad with NULL, 0x10 and a good pointer (42).
 */
#pragma D option quiet

rt$target:::bad
{
	printf("good: %d\n", *args[0]);
}

ERROR
/pid == $target/
{
	@[arg1, arg2, arg4, arg5] = count();
}

END
{
	printa("epid %d action %d fault %d addr 0x%x: %@d\n", @);
}
