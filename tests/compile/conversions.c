/*
 * The conversions real code relies on, which the argument checks must let
 * through: long or an enum for int, char * for const char *, arrays, 0 and
 * NULL for pointers, functions for function pointers, a probe inside another
 * macro's arguments. Compiled as C and C++ under -Wall -Wextra -Werror.
 */
#include <stddef.h>
#include "tst.basic.h"
#include "tst.types.h"

struct node {
	int v;
};
struct other;
enum state { IDLE, BUSY };

static enum state get_state(void)
{
	return BUSY;
}

static int cb(int a, const char *s)
{
	(void)s;
	return a;
}

static void done(void)
{
}

#define FIRE_IF(cond, probe) \
	do { \
		if (cond) \
			probe; \
	} while (0)

int main(int argc, char **argv)
{
	long l = 5;
	short sh = 1;
	unsigned u = 2;
	char c = 'x';
	unsigned char uc = 3;
	enum state st = IDLE;
	size_t sz = 9;
	char buf[16] = "buf";
	const char *cs = "cs";
	char *s = buf;
	struct node n = { 1 };
	const struct node *cn = &n;
	void *vp = &n;

	BASIC_START(l, l, s, &n);               /* long for int, char * for const char * */
	BASIC_START(st, st, cs, cn);            /* enum for int, const struct * for void * */
	BASIC_START(get_state(), u, buf, NULL); /* a call returning an enum, an array, NULL */
	BASIC_START(c, sz, 0, 0);               /* char for int, 0 for pointers */
	BASIC_START(uc, -1, "literal", vp);
	BASIC_START(sh, 1ull, argv[0], argv);
	BASIC_START(argc > 1, 'c', s, &argc);
	BASIC_REQUEST_DONE(buf, l, sz);         /* long for short, size_t for long */
	BASIC_FLAG(argc, l, s);                 /* int for _Bool, char * for string */
	BASIC_FLAG(1, c, cs);
	TYPES_IDS(l, l, l, l, l);
	TYPES_STRS(s, argv, &n, NULL);
	TYPES_STRS(cs, argv, cn, 0);
	TYPES_CB(cb, done);
	TYPES_CB(&cb, &done);
	TYPES_CB(0, NULL);
	TYPES_COL(st, sz);
	TYPES_COL(BUSY, 0);
	FIRE_IF(argc > 0, BASIC_START(argc, 1ull, cs, 0));
	FIRE_IF(argc > 0, TYPES_STRS(s, argv, &n, 0));
	BASIC_TICK();
	return 0;
}
