/* aggsortrev: the order reversed, variables included; aggsortkeypos: which key first. */
#pragma D option quiet
#pragma D option aggsortrev

BEGIN
{
	@a["x"] = sum(1);
	@a["y"] = sum(3);
	@a["z"] = sum(2);
	@b[1, "q"] = count();
	@b[2, "p"] = count();
	exit(0);
}
