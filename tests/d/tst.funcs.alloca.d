/* @target: mem */
/*
 * alloca(): zeroed scratch memory of the clause, 8-aligned; bcopy() into it
 * from the process (DTrace's tst.bcopy.d reads a variable of the kernel so).
 */
#pragma D option quiet

rt$target:::mem
{
	this->p = (int64_t *)alloca(8);
	this->before = *this->p;
	bcopy((void *)(arg0 + 16), this->p, 8);
	this->q = (char *)alloca(3);
	this->r = (char *)alloca(1);
	printf("%d %d %d %d\n", this->before, *this->p, (uintptr_t)this->p % 8,
	    (uintptr_t)this->r % 8);
	bcopy((void *)arg0, this->q, 3);
	printf("%d %d %d\n", this->q[0], this->q[1], this->q[2]);
}
