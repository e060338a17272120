/* A length is part of the conversion: %ld takes a long, not an int (DTrace's D_PRINTF_ARG_TYPE). */
BEGIN
{
	printf("%ld\n", 1);
}
