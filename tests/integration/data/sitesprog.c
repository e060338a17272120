/*
 * One probe, sites in two functions: in only(), the site is the function's
 * only statement (a call a compiler would make a tail jump), in other() it
 * is followed by more work. tests/integration/sites.sh traces it by
 * function.
 */
#include <stdio.h>

#include "sites.h"

static volatile int sink;

__attribute__((noinline)) void only(int x)
{
	SITES_P(x);
}

__attribute__((noinline)) void other(int x)
{
	SITES_P(x + 100);
	sink = x;
}

int main(void)
{
	for (int i = 0; i < 3; i++) {
		only(i);
		other(i);
	}
	return 0;
}
