/* strstr(): the rest of the string from the first occurrence, NULL when none. */
#pragma D option quiet

BEGIN
{
	s = "hello world, hello";
	printf("[%s] [%s] [%s]\n", strstr(s, "hello"), strstr(s, "world"), strstr(s, ""));
	printf("%d %d [%s]\n", strstr(s, "xyz") == NULL, strstr("", "a") == NULL, strstr("", ""));
	printf("[%s]\n", strstr(s, "d, h"));
	exit(0);
}
