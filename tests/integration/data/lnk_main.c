/* Fires lnk:hit from a live function; lnk:dead sits in a function nothing calls. */
#include <stdio.h>
#include "lnk.h"

__attribute__((noinline)) void unused_function(int n);
__attribute__((noinline)) void unused_function(int n)
{
	LNK_DEAD(n);
}

__attribute__((noinline)) static void work(int n)
{
	if (LNK_HIT_ENABLED())
		LNK_HIT(n, "main");
}

int main(int argc, char **argv)
{
	(void)argv;
	work(argc + 41);
	puts("done");
	return 0;
}
