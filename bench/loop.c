/* SPDX-License-Identifier: MIT */
/*
 * The driver of the disabled-probe benchmark: "loop N" calls bench_site()
 * N times (for callgrind); "loop N time" warms up, then makes the N calls in
 * SLICES slices timed with clock_gettime(CLOCK_MONOTONIC) and prints the
 * nanoseconds per call of the fastest slice (the one least disturbed).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "site.h"

#define SLICES 10

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void run(long n, const char *s)
{
	long k;

	for (k = 0; k < n; k++)
		bench_site((int)k, s, k);
}

int main(int argc, char **argv)
{
	double t0, t1, best = 0;
	long n, slice;
	int i;

	if (argc < 2 || (n = atol(argv[1])) <= 0) {
		fprintf(stderr, "usage: %s N [time]\n", argv[0]);
		return 2;
	}
	if (argc < 3 || strcmp(argv[2], "time") != 0) {
		run(n, argv[0]);
		return 0;
	}
	slice = n / SLICES + 1;
	run(slice, argv[0]);
	for (i = 0; i < SLICES; i++) {
		t0 = now_ns();
		run(slice, argv[0]);
		t1 = now_ns();
		if (i == 0 || t1 - t0 < best)
			best = t1 - t0;
	}
	printf("%.4f\n", best / (double)slice);
	return 0;
}
