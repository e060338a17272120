/* A structure takes only a structure of its type. */
struct a {
	int x;
} one;

struct b {
	int x;
} two;

BEGIN
{
	one = two;
}
