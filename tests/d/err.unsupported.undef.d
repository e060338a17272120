/*
 * A name that is no function of D: DTrace's message.
 */
BEGIN
{
	nosuchaction(1);
}
