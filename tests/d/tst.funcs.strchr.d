/*
 * strchr() and strrchr(): the rest of the string from the first (last)
 * occurrence of a character, NULL when there is none; the NUL itself is
 * found, as in DTrace ("").
 */
#pragma D option quiet

BEGIN
{
	s = "foo/bar/baz";
	printf("[%s] [%s]\n", strchr(s, '/'), strrchr(s, '/'));
	printf("[%s] [%s]\n", strchr(s, 'f'), strrchr(s, 'z'));
	printf("%d %d\n", strchr(s, 'x') == NULL, strrchr("", 'a') == NULL);
	printf("[%s] %d\n", strchr(s, 0), strchr(s, 0) == NULL);
	exit(0);
}
