/* progenyof() takes a pid. */
BEGIN
{
	trace(progenyof("init"));
}
