/*
 * bcopy() writes only into alloca()'s memory of the clause: not past what
 * alloca() gave (DTrace's err.badbcopy1.d), not into a previous clause's
 * (err.badalloca.d), and not into memory of the process. (An address of
 * dtrace's own memory reads 0x* in the expected output: it varies.)
 */
#pragma D option quiet

BEGIN
{
	this->src = alloca(8);
	ptr = alloca(0);
	bcopy(this->src, ptr, 4);
}

BEGIN
{
	ptr = alloca(4);
}

BEGIN
{
	bcopy(ptr, ptr, 4);
}

BEGIN
{
	bcopy(alloca(4), (void *)0x1000, 4);
}

BEGIN
{
	this->src = (int *)alloca(4);
	this->ok = (int *)alloca(4);
	bcopy(this->src, this->ok, 4);
	printf("%d\n", *this->ok);
	exit(1);
}
