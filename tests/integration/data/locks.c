/* SPDX-License-Identifier: MIT */
/*
 * Locks taken in known ways, for the plockstat provider's test (locks.sh):
 * each scenario has its own global lock, so that each probe's count on it
 * is exactly what the scenario did. A waiter is known to wait when the
 * kernel says its thread sleeps (/proc/self/task/TID/stat), not after a
 * while.
 *
 *	locks [N [GO END]]
 *
 * With GO and END (a running process's test: dtrace -p): "ready", wait
 * until file GO exists, run, then wait until file END exists.
 *
 * m_block      held by main while N threads lock it: each blocks once
 * m_free       locked and unlocked N times by main alone: never blocks
 * m_try        a trylock while main holds it (EBUSY), one after
 * m_check      an error-checking mutex locked twice: EDEADLK
 * m_rec        a recursive mutex locked three times, unlocked three times
 * m_timed      a timedlock that times out while main holds it: ETIMEDOUT
 * m_adapt      an adaptive mutex a thread spins on, then blocks on
 * rw           held for writing while N readers wait, then for reading
 *              while a writer waits
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

pthread_mutex_t m_block = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t m_free = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t m_try = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t m_check = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
pthread_mutex_t m_rec = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
pthread_mutex_t m_timed = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t m_adapt = PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP;
pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;

static _Atomic int tids[64], ntids;

/* Say this thread's tid, then run. */
static void arrive(void)
{
	tids[atomic_fetch_add(&ntids, 1)] = (int)syscall(SYS_gettid);
}

/* Is thread tid asleep (in a futex wait: the only thing our waiters do), or gone? */
static int asleep(int tid)
{
	char path[64], buf[512];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	if (!(f = fopen(path, "r")))
		return 1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	const char *p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] == 'S';
}

/* Wait until the n threads started since ntids was 0 are all asleep. */
static void all_asleep(int n)
{
	while (atomic_load(&ntids) < n)
		usleep(100);
	for (int i = 0; i < n; i++)
		while (!asleep(tids[i]))
			usleep(100);
}

static void *block_one(void *a)
{
	(void)a;
	arrive();
	pthread_mutex_lock(&m_block);
	pthread_mutex_unlock(&m_block);
	return NULL;
}

static void *try_busy(void *a)
{
	(void)a;
	if (pthread_mutex_trylock(&m_try) != EBUSY)
		abort();
	return NULL;
}

static void *timed_out(void *a)
{
	struct timespec ts;

	(void)a;
	arrive();
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += 20 * 1000000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	if (pthread_mutex_timedlock(&m_timed, &ts) != ETIMEDOUT)
		abort();
	return NULL;
}

static void *adapt_one(void *a)
{
	(void)a;
	arrive();
	pthread_mutex_lock(&m_adapt);
	pthread_mutex_unlock(&m_adapt);
	return NULL;
}

static void *reader(void *a)
{
	(void)a;
	arrive();
	pthread_rwlock_rdlock(&rw);
	pthread_rwlock_unlock(&rw);
	return NULL;
}

static void *writer(void *a)
{
	(void)a;
	arrive();
	pthread_rwlock_wrlock(&rw);
	pthread_rwlock_unlock(&rw);
	return NULL;
}

/* Start n threads of fn while main holds what it holds; when all sleep, release(); join. */
static void waiters(int n, void *(*fn)(void *), void (*release)(void))
{
	pthread_t t[64];

	atomic_store(&ntids, 0);
	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, fn, NULL);
	all_asleep(n);
	release();
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
}

static void unlock_block(void) { pthread_mutex_unlock(&m_block); }
static void unlock_timed(void) { }
static void unlock_adapt(void) { pthread_mutex_unlock(&m_adapt); }
static void unlock_rw(void) { pthread_rwlock_unlock(&rw); }

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 4;
	pthread_t t;

	if (n < 1 || n > 64)
		n = 4;
	if (argc > 3) {
		printf("ready\n");
		fflush(stdout);
		while (access(argv[2], F_OK))
			usleep(10000);
	}
	pthread_mutex_lock(&m_block);
	waiters(n, block_one, unlock_block);

	for (int i = 0; i < n; i++) {
		pthread_mutex_lock(&m_free);
		pthread_mutex_unlock(&m_free);
	}

	pthread_mutex_lock(&m_try);
	pthread_create(&t, NULL, try_busy, NULL);
	pthread_join(t, NULL);
	pthread_mutex_unlock(&m_try);
	if (pthread_mutex_trylock(&m_try))
		abort();
	pthread_mutex_unlock(&m_try);

	pthread_mutex_lock(&m_check);
	if (pthread_mutex_lock(&m_check) != EDEADLK)
		abort();
	pthread_mutex_unlock(&m_check);

	for (int i = 0; i < 3; i++)
		pthread_mutex_lock(&m_rec);
	for (int i = 0; i < 3; i++)
		pthread_mutex_unlock(&m_rec);

	pthread_mutex_lock(&m_timed);
	waiters(1, timed_out, unlock_timed);
	pthread_mutex_unlock(&m_timed);

	pthread_mutex_lock(&m_adapt);
	waiters(1, adapt_one, unlock_adapt);

	pthread_rwlock_wrlock(&rw);
	waiters(n, reader, unlock_rw);
	pthread_rwlock_rdlock(&rw);
	waiters(1, writer, unlock_rw);

	printf("locks: %d waiters\n", n);
	fflush(stdout);
	while (argc > 3 && access(argv[3], F_OK))
		usleep(10000);
	return 0;
}
