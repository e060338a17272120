/* typedef in a script, and the C type names D knows. */
#pragma D option quiet

typedef unsigned short port_t;
typedef struct point {
	int x, y;
} point_t;

BEGIN
{
	printf("%d %d\n", (port_t)65537, sizeof(point_t));
	printf("%d %d %d\n", (uint16_t)-1, (int8_t)255, (uint32_t)-1 == 4294967295U);
	exit(0);
}
