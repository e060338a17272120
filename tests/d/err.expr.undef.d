BEGIN
{
	trace(nosuchthing + 1);
}
