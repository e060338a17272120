/* With UDTRACE_DISABLE the macros evaluate nothing and need no -G object. */
#include <stdio.h>
#include "tst.basic.h"

static int calls;

static int count(void)
{
	return ++calls;
}

int main(void)
{
	int unused_but_probed = 3;

	BASIC_START(count(), 1ull, "x", 0);
	BASIC_REQUEST_DONE(0, (short)unused_but_probed, 0L);
	if (BASIC_TICK_ENABLED())
		return 1;
	printf("%d\n", calls);
	return 0;
}
