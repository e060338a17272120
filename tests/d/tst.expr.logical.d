/* && || ^^ ! and the conditional operator; && and || do not evaluate what they need not. */
#pragma D option quiet

BEGIN
{
	printf("%d %d %d %d\n", 1 && 2, 1 && 0, 0 || 3, 0 || 0);
	printf("%d %d %d\n", 1 ^^ 0, 1 ^^ 2, 0 ^^ 0);
	printf("%d %d %d\n", !0, !5, !!5);
	printf("%d %d\n", 3 > 2 ? 10 : 20, 3 < 2 ? 10 : 20);
	printf("%s\n", 1 ? "yes" : "no");
	printf("%d\n", 0 && 1 / 0);
	printf("%d\n", 1 || 1 / 0);
	exit(0);
}
