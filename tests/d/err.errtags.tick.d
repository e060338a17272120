/* @options: -x errtags */
/* -x errtags: tick-n with no number is no probe of the profile provider. */
tick-n
{
	exit(0);
}
