/* SPDX-License-Identifier: MIT */
/*
 * Functions with the properties the pid provider must handle (tests/
 * integration/pid.sh): a tiny leaf, a tail call, a call and a short tail
 * after it, several returns, a jump table, a function of one instruction,
 * recursion, ten arguments, and calls
 * from threads, a signal handler and a fork child. It says on stdout how
 * often it called each, so that the test compares counts with what it did.
 *
 *	pidfn run N          each function N times (and the threads, the signals,
 *	                     the fork), then its counts and a checksum
 *	pidfn wait FILE N    as run, once FILE exists (a -p target: "ready" first)
 *	pidfn spin FILE      leaf() in a loop until FILE exists ("ready" first), then
 *	                     how many times
 *	pidfn spawn N        N times: vfork() a child that calls leaf() and execs
 *	                     true, posix_spawn() true, call leaf()
 *	pidfn flags N        flagfn() N times: how often the flags changed across
 *	                     flag_site (an offset probe's place)
 *	pidfn dl LIB N [FILE] dlopen() LIB, wait (10 s at most) until its plug_work()'s
 *	                     first byte is patched, call plug_other() N times; with FILE,
 *	                     only once FILE exists ("ready" first), and then until it
 *	                     is removed ("called" first)
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline, noclone))

/* (volatile: the calls are made, not folded away) */
static volatile long sink;

NOINLINE int leaf(int a, int b)
{
	return a + b;
}

NOINLINE int tail(int x)
{
	return leaf(x, 1); /* (a jmp at -O2: the return probe is that jump) */
}

NOINLINE int after(int x)
{
	return leaf(x, 3) + 1; /* (call, add, ret: the return trapped, its call not in a jump) */
}

NOINLINE int multi(int x)
{
	if (x < 0)
		return 1;
	if (x == 0)
		return 2;
	sink += x;
	return 3;
}

NOINLINE int table(int x)
{
	switch (x & 7) {
	case 0: sink += 11; return 10;
	case 1: sink += 13; return 12;
	case 2: sink += 17; return 14;
	case 3: sink += 19; return 16;
	case 4: sink += 23; return 18;
	case 5: sink += 29; return 20;
	case 6: sink += 31; return 22;
	default: sink += 37; return 24;
	}
}

NOINLINE void shortest(void)
{
	__asm__ volatile(""); /* (a ret alone, and a call of it kept) */
}

/* (the depth read back through a volatile: the compiler makes no loop of it) */
static volatile int depth_seen;

NOINLINE int rec(int n)
{
	if (n <= 0)
		return 0;
	int r = rec(n - 1);
	depth_seen = n;
	return r + 1;
}

NOINLINE long args10(long a0, long a1, long a2, long a3, long a4, long a5, long a6, long a7,
		      long a8, long a9)
{
	return a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9;
}

static long n_calls;

static void *thread_main(void *arg)
{
	for (long i = 0; i < n_calls; i++)
		sink += leaf((int)i, (int)(intptr_t)arg);
	return NULL;
}

static void on_usr1(int sig)
{
	sink += leaf(sig, 0);
}

static void run(long n)
{
	long sum = 0;

	n_calls = n;
	for (long i = 0; i < n; i++) {
		sum += leaf((int)i, 2);
		sum += tail((int)i);
		sum += after((int)i);
		sum += multi((int)(i % 3) - 1);
		sum += table((int)i);
		shortest();
		sum += args10(0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
	}
	sum += rec(10);
	/* 4 threads, n leaf() calls each */
	pthread_t th[4];
	for (int i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, thread_main, (void *)(intptr_t)i);
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	/* 10 signals, a leaf() call in each handler */
	signal(SIGUSR1, on_usr1);
	for (int i = 0; i < 10; i++)
		raise(SIGUSR1);
	/* a fork child: 5 calls, then _exit */
	pid_t c = fork();
	if (c == 0) {
		for (int i = 0; i < 5; i++)
			sink += leaf(i, 0);
		_exit(0);
	}
	waitpid(c, NULL, 0);
	printf("leaf %ld\ntail %ld\nafter %ld\nmulti %ld\ntable %ld\nshortest %ld\nargs10 %ld\nrec 11\n"
	       "threads %ld\nsignals 10\nchild 5\nsum %ld\n", n, n, n, n, n, n, n, 4 * n, sum);
	fflush(stdout);
}

/*
 * The flags across a probed instruction where they are live (the
 * trampoline restores them): the flags of a cmp, and the direction flag set
 * every other call, read before flag_site and after it; their difference.
 */
__attribute__((noinline)) unsigned long flagfn(long a, long b, int df)
{
	unsigned long before, after;

	__asm__ volatile("test %3, %3\n\t"
			 "jz 2f\n\t"
			 "std\n"
			 "2:\n\t"
			 "cmp %5, %4\n\t"
			 "pushfq\n\t"
			 "pop %0\n\t"
			 "cmp %5, %4\n\t"
			 ".globl flag_site\n"
			 "flag_site:\n\t"
			 "mov %4, %%r11\n\t"
			 "mov %5, %%r10\n\t"
			 "pushfq\n\t"
			 "pop %1\n\t"
			 "cld\n\t"
			 : "=&r"(before), "=&r"(after)
			 : "0"(0), "r"((long)df), "r"(a), "r"(b)
			 : "r10", "r11", "cc", "memory");
	return before ^ after;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "run")) {
		run(atol(argv[2]));
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "wait")) {
		printf("ready\n");
		fflush(stdout);
		while (access(argv[2], F_OK))
			usleep(1000);
		run(atol(argv[3]));
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "spin")) {
		long n = 0;
		printf("ready\n");
		fflush(stdout);
		while (access(argv[2], F_OK))
			for (int i = 0; i < 100000; i++, n++)
				sink += leaf(i, 3);
		printf("spun %ld\n", n);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "spawn")) {
		/* children that share its memory until they exec: vfork's, posix_spawn's */
		extern char **environ;
		long n = atol(argv[2]), ok = 0;
		for (long i = 0; i < n; i++) {
			char *av[] = { "true", NULL };
			int st = -1;
			pid_t p = vfork();
			if (p == 0) {
				sink += leaf(i, 1);
				execv("/bin/true", av);
				_exit(127);
			}
			ok += p > 0 && waitpid(p, &st, 0) == p && st == 0;
			if (!posix_spawn(&p, "/bin/true", NULL, NULL, av, environ))
				ok += waitpid(p, &st, 0) == p && st == 0;
			sink += leaf(i, 2);
		}
		printf("spawned %ld of %ld\n", ok, 2 * n);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "flags")) {
		long n = atol(argv[2]), bad = 0;
		for (long i = 0; i < n; i++)
			bad += flagfn(i % 7 - 3, i % 5 - 2, (int)(i & 1)) != 0;
		printf("flags changed %ld\n", bad);
		return 0;
	}
	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "dl")) {
		if (argc == 5) {
			printf("ready\n");
			fflush(stdout);
			while (access(argv[4], F_OK))
				usleep(1000);
		}
		void *h = dlopen(argv[2], RTLD_NOW);
		int (*work)(int) = h ? (int (*)(int))dlsym(h, "plug_work") : NULL;
		int (*other)(int) = h ? (int (*)(int))dlsym(h, "plug_other") : NULL;
		if (!work || !other) {
			fprintf(stderr, "pidfn: %s\n", dlerror());
			return 1;
		}
		/* (a probe is enabled a moment after the load: its first byte tells) */
		uint8_t b0 = *(volatile uint8_t *)(void *)work;
		int waited = 0;
		while (*(volatile uint8_t *)(void *)work == b0 && waited++ < 10000)
			usleep(1000);
		long n = atol(argv[3]), sum = 0;
		for (long i = 0; i < n; i++)
			sum += other((int)i);
		printf("%s\nplug %ld\nsum %ld\n", waited <= 10000 ? "enabled" : "not enabled", n,
		       sum);
		fflush(stdout);
		if (argc == 5) {
			printf("called\n");
			fflush(stdout);
			while (!access(argv[4], F_OK))
				usleep(1000);
		}
		return 0;
	}
	fprintf(stderr, "usage: pidfn run N | pidfn wait FILE N | pidfn spin FILE | "
		"pidfn spawn N | pidfn flags N | pidfn dl LIB N [FILE]\n");
	return 2;
}
