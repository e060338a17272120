/* @options: -x errtags */
/* -x errtags: DTrace's tag of the error before it. */
void *p;

BEGIN
{
	trace(p + 1);
}
