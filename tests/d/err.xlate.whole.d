/* @target: mem */
/* @options: -L lib */
rt$target:::info
{
	trace(args[0]);
}
