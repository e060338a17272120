/*
 * aggsortkey: entries by key (integers compared unsigned, as DTrace, so a
 * char -1 is 255 and comes last), then by value.
 */
#pragma D option quiet
#pragma D option aggsortkey

BEGIN
{
	@c[(char)-2] = sum(-2);
	@c[(char)-1] = sum(-1);
	@c[(char)0] = sum(0);
	@c[(char)1] = sum(1);
	@c[(char)2] = sum(2);
	@i[-2] = sum(-2);
	@i[2] = sum(2);
	@s["b"] = sum(1);
	@s["a"] = sum(2);
	exit(0);
}
