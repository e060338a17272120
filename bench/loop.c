/* SPDX-License-Identifier: MIT */
/*
 * The driver of the disabled-probe benchmark: "loop N" calls bench_site()
 * N times (for callgrind), "loop N time" first warms up, then prints the
 * nanoseconds per call measured with clock_gettime(CLOCK_MONOTONIC).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "site.h"

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
	double t0, t1;
	long n;

	if (argc < 2 || (n = atol(argv[1])) <= 0) {
		fprintf(stderr, "usage: %s N [time]\n", argv[0]);
		return 2;
	}
	if (argc < 3 || strcmp(argv[2], "time") != 0) {
		run(n, argv[0]);
		return 0;
	}
	run(n / 8 + 1, argv[0]);
	t0 = now_ns();
	run(n, argv[0]);
	t1 = now_ns();
	printf("%.4f\n", (t1 - t0) / (double)n);
	return 0;
}
