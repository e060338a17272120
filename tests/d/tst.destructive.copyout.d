/* @target: copyout */
/* @options: -w */
/*
 * copyoutstr() and copyout() write into the traced process (DTrace's
 * destructive subroutines): rtprog's copyout mode fires rt:::once(1, buf)
 * with buf "original", then rt:::once(2, &word), and prints them. The
 * string goes with its NUL; copyout() takes the process's memory (buf, as
 * copyoutstr() left it) as its source: word is "inje"'s bytes.
 */
#pragma D option quiet

rt$target:::once
/arg0 == 1/
{
	copyoutstr("injected", arg1, 32);
	self->buf = arg1;
}

rt$target:::once
/arg0 == 2/
{
	copyout((void *)self->buf, arg1, 4);
}
