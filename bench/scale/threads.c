/* SPDX-License-Identifier: MIT */
/*
 * The scale benchmark's program (bench/scale.sh): many threads firing
 * scale:ev(thread, seq). Usage:
 *   threads live T E    T threads alive at once, released together, each
 *                       firing E events; then they exit
 *   threads churn N E   N threads started one after another, each firing E
 *                       events and exiting before the next starts
 * Prints "events N", "wall_ns W" (from the release, or the first start, to
 * the last event), and the session's shared memory as this process maps it
 * at the end: "shm_mapped B" (bytes of its memfd mappings) and "shm_rss B"
 * (their resident bytes), from /proc/self/smaps.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "probes.h"

static long events_each;
static pthread_barrier_t go;

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static void *live(void *arg)
{
	pthread_barrier_wait(&go);
	for (long i = 0; i < events_each; i++)
		SCALE_EV((long)arg, i);
	return NULL;
}

static void *once(void *arg)
{
	for (long i = 0; i < events_each; i++)
		SCALE_EV((long)arg, i);
	return NULL;
}

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

/* The mappings of the session's memfds ("/memfd:udtrace"): their size and resident bytes. */
static void shm_usage(unsigned long long *ret_mapped, unsigned long long *ret_rss)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	int in = 0;

	*ret_mapped = *ret_rss = 0;
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi, kb;
		if (sscanf(line, "%llx-%llx", &lo, &hi) == 2 && strchr(line, ' ')) {
			in = strstr(line, "/memfd:udtrace") != NULL;
			if (in)
				*ret_mapped += hi - lo;
		} else if (in && sscanf(line, "Rss: %llu kB", &kb) == 1) {
			*ret_rss += kb * 1024;
		}
	}
	if (f)
		fclose(f);
}

int main(int argc, char **argv)
{
	long long t0, t1;
	long n;

	if (argc < 4) {
		fprintf(stderr, "usage: threads live|churn N E\n");
		return 2;
	}
	n = atol(argv[2]);
	events_each = atol(argv[3]);
	if (!strcmp(argv[1], "live")) {
		pthread_t *t = calloc((size_t)n, sizeof(*t));
		pthread_barrier_init(&go, NULL, (unsigned)n + 1);
		for (long i = 0; i < n; i++)
			t[i] = start(live, i);
		t0 = now_ns();
		pthread_barrier_wait(&go);
		for (long i = 0; i < n; i++)
			pthread_join(t[i], NULL);
		t1 = now_ns();
		free(t);
	} else {
		t0 = now_ns();
		for (long i = 0; i < n; i++)
			pthread_join(start(once, i), NULL);
		t1 = now_ns();
	}
	unsigned long long mapped, rss;
	shm_usage(&mapped, &rss);
	printf("events %ld\nwall_ns %lld\nshm_mapped %llu\nshm_rss %llu\n", n * events_each,
	       t1 - t0, mapped, rss);
	return 0;
}
