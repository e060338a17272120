/* SPDX-License-Identifier: MIT */
/*
 * The dynamic-probe benchmark's program (bench/dynprov.sh): the cost of
 * firing a probe with three 64-bit integers when a tracer has it enabled,
 * for a probe of a .d file (bench:::ev of bench/enabled/probes.d, through
 * our dtrace -h header and -G object) and for a dynamic probe with the same
 * arguments (dynbench:::ev, udtrace/udtrace.h), in the same process under
 * the same dtrace session.
 *
 *	fire N ROUNDS
 *
 * creates the dynamic provider, times N fires of each probe while nothing
 * traces them (the disabled cost), says "ready PID" on stderr and waits (10 s
 * at most) until both are enabled; then, ROUNDS times, alternating which
 * goes first, fires each probe N times untimed (buffers warm) and N times
 * timed in ten slices. Prints per round and then
 *
 *	RESULT d_ns=A dyn_ns=B d_off_ns=C dyn_off_ns=D
 *
 * A and B: the median over rounds of the fastest slice's ns per fire,
 * enabled; C and D: disabled.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <udtrace/udtrace.h>

#include "probes.h"

#define SLICES 10
#define MAX_ROUNDS 64

static struct udt_probe *dyn;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

__attribute__((noinline)) static void fire_d(long i)
{
	BENCH_EV(i, 1, i ^ 1);
}

__attribute__((noinline)) static void fire_dyn(long i)
{
	udt_probe_fire(dyn, (int64_t)i, (int64_t)1, (int64_t)(i ^ 1));
}

/* ns per fire of the fastest of SLICES slices of n fires in all. */
static double timed(void (*fire)(long), long n)
{
	long per = n / SLICES;
	double best = 1e30;

	for (int s = 0; s < SLICES; s++) {
		uint64_t t0 = now_ns();

		for (long i = s * per; i < (s + 1) * per; i++)
			fire(i);
		double ns = (double)(now_ns() - t0) / (double)per;
		if (ns < best)
			best = ns;
	}
	return best;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
	static const enum udt_type types[] = { UDT_TYPE_INT64, UDT_TYPE_INT64, UDT_TYPE_INT64 };
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	int rounds = argc > 2 ? atoi(argv[2]) : 5;
	double d[MAX_ROUNDS], y[MAX_ROUNDS], d_off, dyn_off;
	struct udt_provider *prov;

	if (rounds < 1 || rounds > MAX_ROUNDS || n < SLICES) {
		fprintf(stderr, "usage: fire N ROUNDS (ROUNDS 1 to %d)\n", MAX_ROUNDS);
		return 2;
	}
	if (udt_provider_create("dynbench", NULL, &prov) ||
	    udt_provider_add_probe(prov, "main", "ev", types, 3, &dyn) || udt_provider_load(prov)) {
		fprintf(stderr, "fire: cannot make the dynamic provider\n");
		return 1;
	}
	d_off = timed(fire_d, n);
	dyn_off = timed(fire_dyn, n);
	fprintf(stderr, "ready %d\n", (int)getpid());
	for (int w = 0; w < 10000 && !(BENCH_EV_ENABLED() && udt_probe_enabled(dyn)); w++)
		usleep(1000);
	if (!(BENCH_EV_ENABLED() && udt_probe_enabled(dyn))) {
		fprintf(stderr, "fire: the probes were not enabled\n");
		return 1;
	}
	for (int r = 0; r < rounds; r++) {
		for (int k = 0; k < 2; k++) {
			int first_d = (r + k) % 2 == 0;

			for (long i = 0; i < n; i++)
				first_d ? fire_d(i) : fire_dyn(i);
			if (first_d)
				d[r] = timed(fire_d, n);
			else
				y[r] = timed(fire_dyn, n);
		}
		printf("round %d d_ns=%.2f dyn_ns=%.2f\n", r, d[r], y[r]);
	}
	printf("RESULT d_ns=%.2f dyn_ns=%.2f d_off_ns=%.2f dyn_off_ns=%.2f\n", median(d, rounds),
	       median(y, rounds), d_off, dyn_off);
	udt_provider_free(prov);
	return 0;
}
