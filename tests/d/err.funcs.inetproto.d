/* inet_ntoa6() wants a struct in6_addr (or void) pointer, as DTrace's prototype says. */
BEGIN
{
	trace(inet_ntoa6((int *)alloca(16)));
}
