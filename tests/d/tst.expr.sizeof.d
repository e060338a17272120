/* sizeof of types and expressions, and offsetof, in the LP64 data model. */
#pragma D option quiet

struct s {
	char c;
	int i;
	long l;
	char name[10];
	struct {
		short x;
		short y;
	} pair;
};

BEGIN
{
	printf("%d %d %d %d %d\n", sizeof(char), sizeof(short), sizeof(int), sizeof(long),
	    sizeof(long long));
	printf("%d %d %d\n", sizeof(void *), sizeof(uint8_t), sizeof(int64_t));
	printf("%d %d %d %d\n", sizeof(struct s), offsetof(struct s, i), offsetof(struct s, l),
	    offsetof(struct s, name));
	printf("%d %d\n", offsetof(struct s, pair), sizeof(1 + 1));
	exit(0);
}
