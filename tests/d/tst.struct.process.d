/* @target: mem */
/* @options: -L lib */
/*
 * A structure of the process copied into variables (self->, this->, an
 * associative array's element) when the probe fires, so that its members
 * are read later from the copy; float and double members and variables
 * (D prints them, with %f, and copies them, but does no arithmetic on
 * them). The program's rtmem_t is in lib/rt.d.
 */
#pragma D option quiet

double dbl[int];

rt$target:::mem
{
	self->m = *(rtmem_t *)arg0;
	this->m = *(rtmem_t *)arg0;
	saved[1] = *(rtmem_t *)arg0;
	dbl[1] = self->m.d;
	this->f = this->m.f;
}

rt$target:::mem
{
	printf("%d %u %d %d %s\n", self->m.s8, self->m.u8, self->m.s16, self->m.s64,
	    copyinstr((uintptr_t)self->m.str));
	printf("%d %d %.2f %.4f %.1f %.4f\n", this->m.u32 == 4000000000, saved[1].s32,
	    saved[1].d, saved[1].f, dbl[1], this->f);
}
