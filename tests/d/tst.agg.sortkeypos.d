/* aggsortkey with aggsortkeypos=1: the second key component sorts first. */
#pragma D option quiet
#pragma D option aggsortkey
#pragma D option aggsortkeypos=1

BEGIN
{
	@b[1, "q"] = count();
	@b[2, "p"] = count();
	@b[3, "p"] = count();
	printa("%d %s %@d\n", @b);
	exit(0);
}
