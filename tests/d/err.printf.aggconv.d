/* %@ is printa()'s alone (DTrace's D_PRINTF_AGG_CONV). */
BEGIN
{
	printf("%@d\n", 1);
}
