/* SPDX-License-Identifier: MIT */
/*
 * The program of bench/fire_instr.sh:
 *
 *   fire N [ALT [SESSIONS]]
 *
 * waits until SESSIONS consumers (1 by default) have enabled cg:::a (its
 * semaphore counts them), then fires it N times, each
 * from its own function (so that callgrind can tell the fires apart from
 * the loop); with ALT 1, each cg:::a is followed by a cg:::b, so that every
 * fire misses the thread's one-probe ECB cache (docs/runtime.md, "The
 * probe path").
 */
#include <stdlib.h>
#include <unistd.h>

#include "probes.h"

__attribute__((noinline)) static void fire_a(long i)
{
	CG_A(i, 1, 2);
}

__attribute__((noinline)) static void fire_b(long i)
{
	CG_B(i, 1, 2);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 0;
	int alt = argc > 2 && atoi(argv[2]);
	int sessions = argc > 3 ? atoi(argv[3]) : 1;

	for (int waited = 0; *(volatile unsigned short *)&cg_a_semaphore < sessions &&
			     waited < 30000; waited++)
		usleep(1000);
	for (long i = 0; i < n; i++) {
		fire_a(i);
		if (alt)
			fire_b(i);
	}
	return 0;
}
