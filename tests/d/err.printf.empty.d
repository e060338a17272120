/* printf("") is DTrace's D_PRINTF_FMT_EMPTY. */
BEGIN
{
	printf("");
}
