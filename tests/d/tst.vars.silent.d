/* @target: ticks 3 1 */
/* A clause that only assigns records nothing, and prints no probe line. */
rt$target:::tick
{
	self->last = arg1;
}

rt$target:::tick
/arg1 == 2/
{
	trace(self->last);
}
