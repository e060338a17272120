/* @target: bad */
rt$target:::once
{
	trace(args[5]);
}
