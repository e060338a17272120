/* stop() in BEGIN would stop dtrace itself: refused. */
BEGIN
{
	stop();
}
