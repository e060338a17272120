/* SPDX-License-Identifier: MIT */
/*
 * Benchmark 18's workload (bench/plockstat.sh): T threads each take one
 * global mutex N times around a short critical section, so that most
 * acquisitions contend; then a reader-writer lock the same way, one in
 * eight for writing. Prints
 *
 *	RESULT threads=T events=E ns=W cpu_ns=C
 *
 * events: the acquisitions; ns: wall ns per acquisition; cpu_ns: the
 * process's CPU ns (user and system) per acquisition.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static volatile unsigned long shared[8];
static long iters;

static void work(void)
{
	for (int k = 0; k < 8; k++)
		shared[k]++;
}

static void *worker(void *arg)
{
	long id = (long)arg;

	for (long i = 0; i < iters; i++) {
		pthread_mutex_lock(&m);
		work();
		pthread_mutex_unlock(&m);
	}
	for (long i = 0; i < iters; i++) {
		if ((i + id) % 8 == 0)
			pthread_rwlock_wrlock(&rw);
		else
			pthread_rwlock_rdlock(&rw);
		work();
		pthread_rwlock_unlock(&rw);
	}
	return NULL;
}

static double now_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long threads = argc > 1 ? atol(argv[1]) : 4;
	pthread_t t[64];

	iters = argc > 2 ? atol(argv[2]) : 200000;
	if (threads < 1 || threads > 64 || iters < 1)
		return 2;
	double w0 = now_ns(CLOCK_MONOTONIC), c0 = now_ns(CLOCK_PROCESS_CPUTIME_ID);
	for (long i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (long i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	double w = now_ns(CLOCK_MONOTONIC) - w0, c = now_ns(CLOCK_PROCESS_CPUTIME_ID) - c0;
	long events = 2 * threads * iters;
	printf("RESULT threads=%ld events=%ld ns=%.1f cpu_ns=%.1f\n", threads, events, w / events,
	       c / events);
	return 0;
}
