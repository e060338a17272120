/* SPDX-License-Identifier: MIT */
/*
 * The traced program of the thread tests (tests/integration/threads.sh):
 * threads that come and go. Usage:
 *   churn churn N LIVE FIRES  N threads, at most LIVE alive at a time, each
 *                             firing rt:::tick(thread, seq) FIRES times (seq
 *                             0..FIRES-1) and then exiting
 *   churn live N              N threads alive at once: each fires
 *                             rt:::tick(thread, 0) and waits until all have
 *                             fired, then they exit
 *   churn burst N             N threads wait until rt:::tick is enabled
 *                             (says "waiting" on stderr), then all fire
 *                             rt:::tick(thread, 0) at once: a session's first
 *                             fires, that meet its memory being made
 * At the end the main thread fires rt:::once(fires, "done") and prints
 * "fired F" (the fires of rt:::tick) on stdout.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rt.h"

static long fires_each;
static pthread_barrier_t all_fired;

static void *churner(void *arg)
{
	long thread = (long)arg;

	for (long i = 0; i < fires_each; i++)
		RT_TICK((int)thread, i);
	return NULL;
}

static void *liver(void *arg)
{
	RT_TICK((int)(long)arg, 0);
	pthread_barrier_wait(&all_fired);
	return NULL;
}

static void *burster(void *arg)
{
	pthread_barrier_wait(&all_fired);
	RT_TICK((int)(long)arg, 0);
	return NULL;
}

/* Start a thread of small stack (10,000 at once fit in a test's memory). */
static pthread_t start(void *(*fn)(void *), long arg)
{
	pthread_attr_t a;
	pthread_t t;

	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, 64 * 1024);
	if (pthread_create(&t, &a, fn, (void *)arg)) {
		perror("pthread_create");
		exit(1);
	}
	pthread_attr_destroy(&a);
	return t;
}

int main(int argc, char **argv)
{
	long fired = 0;

	if (argc >= 5 && !strcmp(argv[1], "churn")) {
		long n = atol(argv[2]), live = atol(argv[3]);
		pthread_t *t = calloc((size_t)live, sizeof(*t));

		fires_each = atol(argv[4]);
		for (long base = 0; base < n; base += live) {
			long k = n - base < live ? n - base : live;
			for (long i = 0; i < k; i++)
				t[i] = start(churner, base + i);
			for (long i = 0; i < k; i++)
				pthread_join(t[i], NULL);
		}
		fired = n * fires_each;
		free(t);
	} else if (argc >= 3 && !strcmp(argv[1], "live")) {
		long n = atol(argv[2]);
		pthread_t *t = calloc((size_t)n, sizeof(*t));

		pthread_barrier_init(&all_fired, NULL, (unsigned)n);
		for (long i = 0; i < n; i++)
			t[i] = start(liver, i);
		for (long i = 0; i < n; i++)
			pthread_join(t[i], NULL);
		fired = n;
		free(t);
	} else if (argc >= 3 && !strcmp(argv[1], "burst")) {
		long n = atol(argv[2]);
		pthread_t *t = calloc((size_t)n, sizeof(*t));
		struct timespec ms = { 0, 1000000 };

		pthread_barrier_init(&all_fired, NULL, (unsigned)n + 1);
		for (long i = 0; i < n; i++)
			t[i] = start(burster, i);
		fprintf(stderr, "waiting\n");
		while (!RT_TICK_ENABLED())
			nanosleep(&ms, NULL);
		pthread_barrier_wait(&all_fired);
		for (long i = 0; i < n; i++)
			pthread_join(t[i], NULL);
		fired = n;
		free(t);
	} else {
		fprintf(stderr, "usage: churn churn N LIVE FIRES | churn live N | churn burst N\n");
		return 2;
	}
	RT_ONCE((int)fired, "done");
	printf("fired %ld\n", fired);
	return 0;
}
