/* SPDX-License-Identifier: MIT */
/*
 * The program of the D-language benchmark (bench/dlang.sh):
 *
 *   dl MODE N [WAIT]
 *
 * fires N events in a tight loop, in one thread: dl:::ev(k, 0, k) (MODE ev)
 * or dl:::msg(k, s) with s a 32-character string (MODE msg). With WAIT = 1
 * it first waits until the probe is enabled (its is-enabled test, polled
 * every millisecond): for a tracer that attaches with -p. Then an untimed
 * pass of N events (warm_*: the tracer's buffers and tables written once,
 * as in a running trace), then the timed pass (timed_*), in SLICES slices.
 * dl:::ev also has a site in another function, other(), called once at the
 * start: enabling dl*::other:ev sets the probe's semaphore, so the timed
 * site calls the runtime, which finds no ECB for it (a disabled site with
 * its semaphore set). Prints
 *
 *   RESULT events=N ns=W cpu_ns=C best_ns=B
 *
 * W and C: wall (CLOCK_MONOTONIC) and the thread's CPU time
 * (CLOCK_THREAD_CPUTIME_ID) per event of the timed pass; B: the wall ns per
 * event of its fastest slice.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "probes.h"

#define SLICES 10

static const char msg[] = "0123456789abcdef0123456789abcdef"; /* 32 characters */

static double clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* The probe's other site: see above. */
__attribute__((noinline)) void other(long k);
__attribute__((noinline)) void other(long k)
{
	DL_EV(k, 1, k);
}

static __attribute__((noinline)) void warm_ev(long n)
{
	for (long k = 0; k < n; k++)
		DL_EV(k, 0, k);
}

static __attribute__((noinline)) void timed_ev(long from, long to)
{
	for (long k = from; k < to; k++)
		DL_EV(k, 0, k);
}

static __attribute__((noinline)) void warm_msg(long n)
{
	for (long k = 0; k < n; k++)
		DL_MSG(k, msg);
}

static __attribute__((noinline)) void timed_msg(long from, long to)
{
	for (long k = from; k < to; k++)
		DL_MSG(k, msg);
}

int main(int argc, char **argv)
{
	long n;
	int is_msg;

	if (argc < 3 || (n = atol(argv[2])) <= 0 ||
	    (strcmp(argv[1], "ev") && strcmp(argv[1], "msg"))) {
		fprintf(stderr, "usage: %s ev|msg N [WAIT]\n", argv[0]);
		return 2;
	}
	is_msg = !strcmp(argv[1], "msg");
	other(-1);
	if (argc > 3 && atoi(argv[3]))
		while (!(is_msg ? DL_MSG_ENABLED() : DL_EV_ENABLED()))
			usleep(1000);
	if (is_msg)
		warm_msg(n);
	else
		warm_ev(n);

	double best = 0, t0 = clock_ns(CLOCK_MONOTONIC), c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	for (int s = 0; s < SLICES; s++) {
		long from = n * s / SLICES, to = n * (s + 1) / SLICES;
		double t1 = clock_ns(CLOCK_MONOTONIC), ns;

		if (is_msg)
			timed_msg(from, to);
		else
			timed_ev(from, to);
		ns = (clock_ns(CLOCK_MONOTONIC) - t1) / (double)(to > from ? to - from : 1);
		if (s == 0 || ns < best)
			best = ns;
	}
	double cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0, wall = clock_ns(CLOCK_MONOTONIC) - t0;
	printf("RESULT events=%ld ns=%.3f cpu_ns=%.3f best_ns=%.3f\n", n, wall / (double)n,
	       cpu / (double)n, best);
	return 0;
}
