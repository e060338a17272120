/* Fires every probe of tests/golden/tst.types.d and tst.basic.d with arguments of the declared types. */
#include "tst.types.h"
#include "tst.basic.h"

struct node;
struct other;

static int cb(int a, const char *s)
{
	(void)s;
	return a;
}

static void done(void)
{
}

int main(int argc, char **argv)
{
	const char *cs = "const";
	char buf[8] = "mutable";
	struct node *n = 0;
	struct other *o = 0;

	TYPES_IDS(1u, 2u, sizeof(buf), -1, -5);
	TYPES_STRS(cs, argv, n, o);
	TYPES_CB(cb, done);
	TYPES_COL(0, sizeof(argv));
	if (BASIC_START_ENABLED())
		BASIC_START(argc, 1ull, cs, &argc);
	BASIC_START(argc, 1ull, buf, 0); /* char * where the .d says const char * */
	BASIC_REQUEST_DONE(buf, 200, -1L);
	BASIC_TICK();
	BASIC_FLAG(1, -1, "label");
	return 0;
}
