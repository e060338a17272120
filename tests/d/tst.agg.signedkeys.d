/*
 * Integer keys print at their type's size as trace() prints them (char and
 * short as unsigned), and entries sort by value.
 */
#pragma D option quiet

BEGIN
{
	@c[(char)-2] = sum(-2);
	@c[(char)-1] = sum(-1);
	@c[(char)0] = sum(0);
	@c[(char)1] = sum(1);
	@s[(short)-2] = sum(-2);
	@s[(short)1] = sum(1);
	@i[-2] = sum(-2);
	@i[1] = sum(1);
	@l[(long long)-2] = sum(-2);
	@l[(long long)1] = sum(1);
	exit(0);
}
