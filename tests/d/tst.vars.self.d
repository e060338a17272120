/* @target: ticks 100 2 */
/*
 * self-> variables are per thread: each of two threads counts its own
 * fires between the first and the last; this-> lives for one fire.
 */
#pragma D option quiet

rt$target:::tick
/arg1 == 0/
{
	self->start = timestamp;
	self->n = 0;
}

rt$target:::tick
/self->start/
{
	self->n++;
	this->x = arg1 * 2;
	this->y = this->x + 1;
	@odd = sum(this->y);
}

rt$target:::tick
/arg1 == 99/
{
	@fires[arg0] = sum(self->n);
	@elapsed[arg0] = sum(timestamp > self->start);
	self->start = 0;
}

rt$target:::tick
/arg1 == 99 && !self->start/
{
	@cleared = count();
}
