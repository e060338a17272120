/* @target: mem */
/*
 * A store goes into D's own memory only (alloca()'s, a variable's): one into
 * the process's memory is an invalid address when the probe fires, and the
 * process is left as it was (copyout() writes it, with -w).
 */
#pragma D option quiet

rt$target:::mem
{
	*(int *)arg0 = 5;
}

ERROR
{
	exit(1);
}
