/* @options: -x errtags */
/* exit() of an action: its argument is an int. */
BEGIN
{
	exit(exit(0));
}
