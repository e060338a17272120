/* @target: mem */
rt$target:::info
{
	trace(args[0]->small);
}
