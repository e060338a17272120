/* Comparisons of signed and unsigned values, as C compares them. */
#pragma D option quiet

BEGIN
{
	printf("%d %d %d %d %d %d\n", 1 < 2, 2 <= 2, 3 > 2, 2 >= 3, 2 == 2, 2 != 2);
	printf("%d %d\n", -1 < 1, -1 < 1U);
	printf("%d %d\n", (char)-1 < 0, (unsigned char)-1 < 0);
	printf("%d\n", 4294967295U == -1);
	printf("%d\n", 4294967296LL == -1);
	exit(0);
}
