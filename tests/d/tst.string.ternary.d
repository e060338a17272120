/* ?: with strings on both sides, and with NULL on one. */
#pragma D option quiet

BEGIN
{
	x = 1;
	s = x ? "yes" : "no";
	t = !x ? "yes" : strjoin("n", "o");
	u = x ? NULL : "never";
	printf("%s %s %d\n", s, t, u == NULL);
	exit(0);
}
