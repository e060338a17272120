/* SPDX-License-Identifier: MIT */
/*
 * The soak's target (tests/soak/soak.sh): threads that step until their
 * stdin closes. A step fires soak:::step(thread, seq) (USDT: our -h and
 * -G), the SystemTap site soaknote:::step(thread, seq) (<sys/sdt.h>), and
 * calls step() (the pid provider's), every 64th soak:::burst with a
 * string, and folds into the thread's sum values the compiler keeps live
 * across them (registers a fire must keep). Each thread prints its number
 * of steps and its sum, which depend on nothing else: "ref N0 N1..." makes
 * exactly those steps, unpaced and untraced, and prints the same lines.
 *
 * Usage: soakprog THREADS PACE_US     (prints "ready PID" on stderr)
 *        soakprog ref N0 N1 ...
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sdt.h>
#include <time.h>
#include <unistd.h>

#include "soak.h"

#define THREADS_MAX 16

static volatile bool stop;
static long pace_us;
static volatile unsigned long sink;

struct worker {
	pthread_t th;
	int id;
	long steps; /* ref: how many to make; else how many made */
	unsigned long sum;
};

__attribute__((noinline)) unsigned long step(int id, long seq)
{
	sink += (unsigned long)seq;
	return (unsigned long)seq * 2654435761u + (unsigned long)id;
}

static void *run(void *arg)
{
	struct worker *w = arg;
	bool ref = w->steps >= 0;
	unsigned long a = 1, b = 2, c = 3;
	long seq;

	for (seq = 0; ref ? seq < w->steps : !stop; seq++) {
		a = a * 6364136223846793005ul + (unsigned long)seq;
		if (SOAK_STEP_ENABLED())
			SOAK_STEP(w->id, seq);
		b ^= a >> 7;
		DTRACE_PROBE2(soaknote, step, w->id, seq);
		c += step(w->id, seq) ^ b;
		if (seq % 64 == 0) {
			char s[32];
			snprintf(s, sizeof(s), "t%d-%ld", w->id, seq);
			SOAK_BURST(w->id, seq, s);
			c += (unsigned long)strlen(s);
		}
		if (pace_us) {
			struct timespec d = { 0, pace_us * 1000 };
			nanosleep(&d, NULL);
		}
	}
	w->steps = seq;
	w->sum = a ^ b ^ c;
	return NULL;
}

int main(int argc, char **argv)
{
	static struct worker w[THREADS_MAX];
	bool ref = argc > 1 && !strcmp(argv[1], "ref");
	int n = ref ? argc - 2 : argc > 1 ? atoi(argv[1]) : 4;
	char line[64];

	if (n < 1 || n > THREADS_MAX) {
		fprintf(stderr, "usage: soakprog THREADS PACE_US | soakprog ref N0 N1 ...\n");
		return 2;
	}
	pace_us = !ref && argc > 2 ? atol(argv[2]) : 0;
	for (int i = 0; i < n; i++) {
		w[i].id = i;
		w[i].steps = ref ? atol(argv[i + 2]) : -1;
		pthread_create(&w[i].th, NULL, run, &w[i]);
	}
	if (!ref) {
		fprintf(stderr, "ready %d\n", (int)getpid());
		while (fgets(line, sizeof(line), stdin))
			;
		stop = true;
	}
	for (int i = 0; i < n; i++) {
		pthread_join(w[i].th, NULL);
		printf("thread %d steps %ld sum %lx\n", i, w[i].steps, w[i].sum);
	}
	return 0;
}
