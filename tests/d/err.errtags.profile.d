/* @options: -x errtags */
/*
 * -x errtags: an interval the profile provider refuses (below 200
 * microseconds) names no probe it has: DTrace's D_PDESC_ZERO.
 */
profile-1us
{
	exit(0);
}
