/* @options: -x errtags */
/* ?: of actions: DTrace refuses them (after checking their arguments). */
BEGIN
{
	i = 1;
	x = i ? trace(0) : trace(1);
}
