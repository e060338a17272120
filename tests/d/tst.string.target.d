/* @target: ticks 3 2 */
/*
 * Strings at fire time in the target: thread-local and clause-local string
 * variables from subroutines, compared in predicates, as aggregation keys.
 */
#pragma D option quiet

rt$target:::tick
{
	self->who = strjoin("thread-", lltostr(arg0));
	this->seq = lltostr(arg1);
}

rt$target:::tick
/self->who == "thread-1"/
{
	@[self->who, this->seq] = count();
}

rt$target:::tick
/self->who != "thread-1"/
{
	@other[strjoin(self->who, "!")] = count();
}
