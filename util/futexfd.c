/* SPDX-License-Identifier: MIT */
/*
 * A futex as a descriptor: a thread waits on a word of memory shared with
 * another process (a futex there is keyed by the file and offset, so the
 * other process's FUTEX_WAKE on its own mapping reaches it) and makes an
 * eventfd readable at each wake, for a poll() that waits on descriptors.
 * The word's value is never changed by us, and 0 is what is waited on; a
 * writer of the word that makes the wait return at once gets a wake a
 * millisecond at most.
 */
#include "util/util.h"

#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

struct udt_futexfd {
	uint32_t *word;
	int fd;
	bool stop;
	pthread_t thread;
};

static void *waiter(void *arg)
{
	struct udt_futexfd *f = arg;
	struct timespec ms = { 0, 1000000 };
	uint64_t one = 1;

	while (!__atomic_load_n(&f->stop, __ATOMIC_ACQUIRE)) {
		(void)syscall(SYS_futex, f->word, FUTEX_WAIT, 0, NULL, NULL, 0);
		if (__atomic_load_n(&f->stop, __ATOMIC_ACQUIRE))
			break;
		(void)!write(f->fd, &one, sizeof(one));
		nanosleep(&ms, NULL);
	}
	return NULL;
}

struct udt_futexfd *udt__futexfd_open(uint32_t *word)
{
	struct udt_futexfd *f = udt__xcalloc(1, sizeof(*f));
	sigset_t all, old;

	f->word = word;
	f->fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (f->fd < 0) {
		free(f);
		return NULL;
	}
	/* (signals stay the calling thread's) */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	int err = pthread_create(&f->thread, NULL, waiter, f);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		close(f->fd);
		free(f);
		return NULL;
	}
	return f;
}

int udt__futexfd_fd(const struct udt_futexfd *f)
{
	return f->fd;
}

void udt__futexfd_close(struct udt_futexfd *f)
{
	if (!f)
		return;
	__atomic_store_n(&f->stop, true, __ATOMIC_RELEASE);
	/* (woken from here: whatever the other process does to the word, or whether it lives) */
	while (pthread_tryjoin_np(f->thread, NULL)) {
		(void)syscall(SYS_futex, f->word, FUTEX_WAKE, INT32_MAX, NULL, NULL, 0);
		sched_yield();
	}
	close(f->fd);
	free(f);
}
