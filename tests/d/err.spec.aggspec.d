/* Aggregating actions are never speculative. */
BEGIN
{
	speculate(1);
	@counts = count();
}
