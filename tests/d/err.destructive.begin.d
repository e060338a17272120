/*
 * copyout() in BEGIN would write dtrace's own memory (BEGIN runs in
 * dtrace): refused.
 */
BEGIN
{
	copyout(alloca(4), 0x1000, 4);
}
