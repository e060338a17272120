/* @target: raise 1 */
/* raise() too. */
rt$target:::tick
{
	raise(10);
}
