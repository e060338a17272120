/*
 * setopt("aggsortkey") between two printa()s of one aggregation: by value,
 * then by key. An option a running trace cannot change is an error that
 * names the option, the value and why.
 */
#pragma D option quiet

BEGIN
{
	@[3] = count();
	@[1] = count();
	@[1] = count();
	@[2] = count();
	@[2] = count();
	@[2] = count();
}

BEGIN
{
	printa(@);
	setopt("aggsortkey");
	printa(@);
	setopt("bufsize", "1m");
	exit(0);
}
