/*
 * A program with SystemTap probes and no udtrace in it (tests/integration/
 * notes.sh): stap.d through SystemTap's dtrace -h and -G, and stapprog_lib.c
 * with bare STAP_PROBEn sites. The operands cover registers, constants,
 * memory relative to %rbp and %rip, and sizes 1 to 8, signed and not:
 *
 *	stapprog:::tick(i, acc, i * 3)   semaphore; registers, at -O2
 *	stapprog:::mem(hist[1], i)       semaphore; hist[1] by "8+hist(%rip)"
 *	stapprog:::frame(i, acc, -i, i)  no semaphore; the stack, at -O0
 *	stapprog:::nosem()               no semaphore, no argument
 *
 * Usage: stapprog N [wait] [traps]: N rounds, then prints the sum. "wait"
 * prints "ready" and waits for a line on stdin before the rounds, and
 * "done" and waits for another after them (a tracer attaches, detaches).
 * "traps" installs a SIGTRAP handler of its own, and each round raises
 * SIGTRAP and executes an int3 of its own: it prints how many it caught.
 * "blocker" starts a thread that blocks every signal and sleeps. "fork"
 * makes a child that runs the N rounds again (its probes fire in a copy of
 * the text patched for its parent) and prints its own sum. "twice" runs the
 * rounds again after "done" and its line, and waits at "done" again.
 */
#include "stap.h"

#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

long hist[4];
static volatile sig_atomic_t traps;
void frame(int i, long v, short s, signed char c);

__attribute__((noinline)) static void report(int i)
{
	STAPPROG_MEM(hist[1], i);
}

__attribute__((noinline)) static long work(int i, long acc)
{
	if (STAPPROG_TICK_ENABLED())
		STAPPROG_TICK(i, acc, (long)i * 3);
	acc += i;
	hist[1] += 2;
	report(i);
	return acc;
}

static void on_trap(int sig)
{
	(void)sig;
	traps++;
}

static void *blocker(void *arg)
{
	sigset_t all;

	(void)arg;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	for (;;)
		pause();
	return NULL;
}

/* Wait for a line on stdin: the tracer did what it does at this point. */
static void pause_here(const char *say)
{
	char line[16];

	printf("%s\n", say);
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		exit(1);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10;
	bool wait = false, own_traps = false, child = false, twice = false;
	long acc = 0;
	pthread_t th;

	for (int i = 2; i < argc; i++) {
		wait |= !strcmp(argv[i], "wait");
		own_traps |= !strcmp(argv[i], "traps");
		child |= !strcmp(argv[i], "fork");
		twice |= !strcmp(argv[i], "twice");
		if (!strcmp(argv[i], "blocker"))
			pthread_create(&th, NULL, blocker, NULL);
	}
	if (own_traps)
		signal(SIGTRAP, on_trap);
	if (wait)
		pause_here("ready");
	for (int i = 0; i < n; i++) {
		acc = work(i, acc);
		frame(i, acc, (short)-i, (signed char)i);
		if (own_traps) {
			raise(SIGTRAP);
			__asm__ volatile("int3");
		}
	}
	printf("sum=%ld hist=%ld\n", acc, hist[1]);
	if (child) {
		fflush(stdout);
		pid_t pid = fork();
		if (pid == 0) {
			long c = 0;
			for (int i = 0; i < n; i++) {
				c = work(i, c);
				frame(i, c, (short)-i, (signed char)i);
			}
			printf("child sum=%ld\n", c);
			return 0;
		}
		int st = 0;
		waitpid(pid, &st, 0);
		printf("child status=%d\n", st);
	}
	if (own_traps)
		printf("traps=%d\n", (int)traps);
	if (wait)
		pause_here("done");
	if (twice) {
		acc = 0;
		for (int i = 0; i < n; i++) {
			acc = work(i, acc);
			frame(i, acc, (short)-i, (signed char)i);
		}
		printf("sum=%ld\n", acc);
		if (wait)
			pause_here("done");
	}
	return 0;
}
