/* @options: -x errtags */
/*
 * -x errtags: without -C, a preprocessor directive other than #pragma and
 * #line is an invalid control directive (DTrace's D_PRAGCTL_INVAL).
 */
BEGIN
{
	exit(0);
}

#if 0
#endif
