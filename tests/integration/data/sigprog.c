/*
 * A traced program that changes its signal set-up while its probes are
 * traced, for tests/integration/faults.sh: the runtime loads most of what a
 * clause reads without a system call, and must still never let a fault of
 * its own kill the program or reach the program's handler. It fires
 * rt:::bad (int *p) with pointers a D script reads: a page the runtime has
 * read before (7), NULL, a PROT_NONE page (the guard) and good ones (42).
 * Usage: sigprog MODE, MODE one of
 *   blocked  a thread fires, then blocks SIGSEGV and SIGBUS and fires the
 *            bad pointers and a good one; a thread started with them
 *            blocked does the same;
 *   replace  the program puts its own SIGSEGV and SIGBUS handlers in with
 *            sigaction() mid-session, fires, then faults once itself;
 *   dfl      while the main thread fires 2,000 rounds, another thread
 *            resets SIGSEGV and SIGBUS with signal(SIG_DFL) half-way;
 *   raw      as replace, with the raw rt_sigaction system call;
 * and prints "app faults=N" (faults its handler saw) and "done".
 */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rt.h"

static volatile sig_atomic_t app_faults;
static char *guard;
static long pg;
static int good = 42;

/* The program's handler: only its own touch of the guard is expected. */
static void on_segv(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)uc;
	app_faults++;
	if ((char *)si->si_addr >= guard && (char *)si->si_addr < guard + pg)
		mprotect(guard, (size_t)pg, PROT_READ | PROT_WRITE);
	else
		_exit(3); /* a fault the program did not make: it must never see one */
}

static void fire_bad(void)
{
	RT_BAD(NULL);
	RT_BAD((int *)(void *)guard);
	RT_BAD(&good);
}

static void block_faults(void)
{
	sigset_t s;

	sigemptyset(&s);
	sigaddset(&s, SIGSEGV);
	sigaddset(&s, SIGBUS);
	pthread_sigmask(SIG_BLOCK, &s, NULL);
}

static void *blocking_thread(void *arg)
{
	(void)arg;
	RT_BAD(&good); /* (the runtime learns this thread's mask lets faults through) */
	block_faults();
	fire_bad();
	return NULL;
}

static void *blocked_thread(void *arg)
{
	(void)arg;
	fire_bad();
	return NULL;
}

static volatile int dfl_go;

static void *dfl_thread(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&dfl_go, __ATOMIC_ACQUIRE))
		;
	signal(SIGSEGV, SIG_DFL);
	signal(SIGBUS, SIG_DFL);
	return NULL;
}

/* The kernel's struct sigaction on x86-64 and arm64 (8-byte mask). */
struct ksigaction {
	void *handler;
	unsigned long flags;
	void *restorer;
	uint64_t mask;
};

/* SIGSEGV and SIGBUS to on_segv by the raw system call, with libc's restorer. */
static int raw_handlers(void)
{
	struct sigaction sa = { .sa_handler = SIG_IGN };
	struct ksigaction k;

	if (sigaction(SIGUSR2, &sa, NULL) ||
	    syscall(SYS_rt_sigaction, SIGUSR2, NULL, &k, sizeof(k.mask)))
		return -1;
	k.handler = (void *)on_segv;
	k.flags |= SA_SIGINFO;
	k.mask = 0;
	if (syscall(SYS_rt_sigaction, SIGSEGV, &k, NULL, sizeof(k.mask)) ||
	    syscall(SYS_rt_sigaction, SIGBUS, &k, NULL, sizeof(k.mask)))
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_sigaction = on_segv, .sa_flags = SA_SIGINFO };
	const char *mode = argc > 1 ? argv[1] : "";
	pthread_t t;

	pg = sysconf(_SC_PAGESIZE);
	guard = mmap(NULL, (size_t)pg, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int *seen = mmap(NULL, (size_t)pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
	if (guard == MAP_FAILED || seen == MAP_FAILED)
		return 1;
	*seen = 7;
	RT_BAD(seen);

	if (!strcmp(mode, "blocked")) {
		if (pthread_create(&t, NULL, blocking_thread, NULL) || pthread_join(t, NULL))
			return 1;
		block_faults(); /* (the next thread starts with this mask) */
		if (pthread_create(&t, NULL, blocked_thread, NULL) || pthread_join(t, NULL))
			return 1;
	} else if (!strcmp(mode, "replace") || !strcmp(mode, "raw")) {
		sigemptyset(&sa.sa_mask);
		if (!strcmp(mode, "raw") ? raw_handlers()
					 : sigaction(SIGSEGV, &sa, NULL) || sigaction(SIGBUS, &sa, NULL))
			return 1;
		fire_bad();
		RT_BAD(seen);
		((volatile char *)guard)[1] = 1; /* its own fault, for its own handler */
	} else if (!strcmp(mode, "dfl")) {
		if (pthread_create(&t, NULL, dfl_thread, NULL))
			return 1;
		for (int i = 0; i < 2000; i++) {
			if (i == 1000)
				__atomic_store_n(&dfl_go, 1, __ATOMIC_RELEASE);
			fire_bad();
		}
		pthread_join(t, NULL);
		fire_bad();
	} else {
		fprintf(stderr, "usage: sigprog blocked|replace|dfl|raw\n");
		return 2;
	}
	printf("app faults=%d\n", (int)app_faults);
	printf("done\n");
	return 0;
}
