/* uregs[] of a register this machine does not have. */
BEGIN
{
	trace(uregs[42]);
}
