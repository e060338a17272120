/* SPDX-License-Identifier: MIT */
/*
 * A program of tests/integration/usdt.sh: an is-enabled check in a hot loop
 * that calls nothing (built with -O2, where a semaphore read as a plain load
 * would be read once, before the loop, and the loop never end). It spins
 * until a consumer attached later (-p) enables usdt:::tick, then fires it
 * 1000 times and exits; "ready" on standard output first.
 */
#include "usdt.h"

#include <stdio.h>

int main(void)
{
	unsigned long spins = 0;

	printf("ready\n");
	fflush(stdout);
	while (!USDT_TICK_ENABLED())
		spins++;
	for (int i = 0; i < 1000; i++)
		USDT_TICK(i);
	printf("fired 1000 after %s\n", spins ? "spinning" : "no spin");
	return 0;
}
