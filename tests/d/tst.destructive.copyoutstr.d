/* @target: copyout */
/* @options: -w */
/*
 * copyoutstr(s, addr, maxlen) writes at most maxlen bytes: a longer string
 * goes without its NUL, as DTrace's dtrace_copyoutstr() writes it ("a
 * longer" over "original"); copyout() of alloca()'s memory writes its bytes
 * (zero: word stays 0).
 */
#pragma D option quiet

rt$target:::once
/arg0 == 1/
{
	copyoutstr("a longer string", arg1, 8);
}

rt$target:::once
/arg0 == 2/
{
	copyout(alloca(4), arg1, 4);
}
