/* @target: copyout */
/*
 * copyoutstr() is destructive: without -w tracing does not start (DTrace's
 * message), and the program never runs.
 */
rt$target:::once
{
	copyoutstr("injected", arg1, 32);
}
