/* inet_ntoa6()'s second argument is a constant, as in Oracle's DTrace. */
BEGIN
{
	n = 1;
	trace(inet_ntoa6((struct in6_addr *)alloca(16), n));
}
