/* Enumerations: their constants in expressions, implicit values counting on. */
#pragma D option quiet

enum color { RED, GREEN = 5, BLUE };

BEGIN
{
	printf("%d %d %d %d\n", RED, GREEN, BLUE, BLUE - RED);
	printf("%d\n", sizeof(enum color));
	exit(0);
}
