/* SPDX-License-Identifier: MIT */
/*
 * The target of the injection tests (tests/integration/inject.sh): a program
 * linked as the README's recipe links one (no runtime), blocked in a system
 * call while dtrace -p loads the runtime into it. Usage: injprog MODE [ARG]
 *   accept    listen on 127.0.0.1 (port on stderr), accept one connection, read a line
 *   read      read a line from stdin
 *   undumpable  the same, after prctl(PR_SET_DUMPABLE, 0)
 *   sleep MS  one nanosleep() of MS milliseconds
 *   epoll     epoll_wait() for stdin, then read it
 *   threads N N threads firing inj:::work every millisecond until stdin closes
 *   handlers  its own SIGSEGV, SIGTRAP and SIGPROF handlers, checked after stdin closes
 * Each call's result goes to stdout as it is, with errno: an untraced run
 * prints the same. "ready PID" (and "listening on PORT") go to stderr.
 */
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "inj.h"

static void report(const char *what, long r, const char *buf)
{
	int e = r < 0 ? errno : 0;

	INJ_RESULT(r, what);
	printf("%s: %ld, errno %d (%s)%s%s\n", what, r, e, e ? strerror(e) : "none",
	       buf ? ", data: " : "", buf ? buf : "");
}

static long read_line(int fd, char *buf, size_t sz)
{
	long n = read(fd, buf, sz - 1);

	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return n;
}

static volatile int stop;

static void *worker(void *arg)
{
	struct timespec ms = { 0, 1000000 };

	for (long turn = 0; !stop; turn++) {
		INJ_WORK((int)(long)arg, turn);
		nanosleep(&ms, NULL);
	}
	return NULL;
}

static volatile sig_atomic_t segvs, traps, profs;
static sigjmp_buf segv_jmp;

static void on_segv(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)si, (void)uc;
	segvs++;
	siglongjmp(segv_jmp, 1);
}

static void on_trap(int sig)
{
	(void)sig;
	traps++;
}

static void on_prof(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)si, (void)uc;
	profs++;
}

/* Is sig's disposition still a (as the kernel gave it back when it was set)? */
static const char *same(int sig, const struct sigaction *a)
{
	struct sigaction now;

	sigaction(sig, NULL, &now);
	/* (the kernel's mask is 64 bits: the rest of a sigset_t is not filled in) */
	return now.sa_handler == a->sa_handler && now.sa_flags == a->sa_flags &&
			       !memcmp(&now.sa_mask, &a->sa_mask, 8)
		       ? "kept"
		       : "CHANGED";
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "read";
	char buf[256];

	setvbuf(stdout, NULL, _IOLBF, 0);
	fprintf(stderr, "ready %d\n", (int)getpid());
	if (!strcmp(mode, "accept")) {
		struct sockaddr_in sa = { .sin_family = AF_INET,
					  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
		socklen_t len = sizeof(sa);
		int s = socket(AF_INET, SOCK_STREAM, 0);
		if (s < 0 || bind(s, (struct sockaddr *)&sa, sizeof(sa)) || listen(s, 1) ||
		    getsockname(s, (struct sockaddr *)&sa, &len))
			return 1;
		fprintf(stderr, "listening on %d\n", ntohs(sa.sin_port));
		int c = accept(s, NULL, NULL);
		report("accept", c < 0 ? -1 : 0, NULL);
		report("read", c < 0 ? -1 : read_line(c, buf, sizeof(buf)), buf);
	} else if (!strcmp(mode, "read") || !strcmp(mode, "undumpable")) {
		if (!strcmp(mode, "undumpable"))
			prctl(PR_SET_DUMPABLE, 0);
		long n = read_line(0, buf, sizeof(buf));
		report("read", n, buf);
	} else if (!strcmp(mode, "sleep")) {
		long ms = argc > 2 ? atol(argv[2]) : 1000;
		struct timespec d = { ms / 1000, ms % 1000 * 1000000 }, t0, t1;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		int r = nanosleep(&d, NULL);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		report("nanosleep", r, NULL);
		long slept = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
		printf("slept its full %ld ms: %s\n", ms, slept >= ms ? "yes" : "no");
	} else if (!strcmp(mode, "epoll")) {
		struct epoll_event ev = { .events = EPOLLIN };
		int ep = epoll_create1(0);
		epoll_ctl(ep, EPOLL_CTL_ADD, 0, &ev);
		report("epoll_wait", epoll_wait(ep, &ev, 1, -1), NULL);
		report("read", read_line(0, buf, sizeof(buf)), buf);
	} else if (!strcmp(mode, "threads")) {
		int n = argc > 2 ? atoi(argv[2]) : 50;
		pthread_t *t = calloc((size_t)n, sizeof(*t));
		for (long i = 0; i < n; i++)
			pthread_create(&t[i], NULL, worker, (void *)i);
		while (read(0, buf, sizeof(buf)) > 0)
			;
		stop = 1;
		for (int i = 0; i < n; i++)
			pthread_join(t[i], NULL);
		printf("threads: %d joined\n", n);
	} else if (!strcmp(mode, "handlers")) {
		struct sigaction segv = { .sa_sigaction = on_segv, .sa_flags = SA_SIGINFO | SA_NODEFER };
		struct sigaction trap = { .sa_handler = on_trap, .sa_flags = SA_RESTART };
		struct sigaction prof = { .sa_sigaction = on_prof, .sa_flags = SA_SIGINFO | SA_RESTART };
		sigaddset(&trap.sa_mask, SIGUSR1);
		sigaddset(&prof.sa_mask, SIGUSR2);
		sigaction(SIGSEGV, &segv, NULL);
		sigaction(SIGTRAP, &trap, NULL);
		sigaction(SIGPROF, &prof, NULL);
		/* (the C library adds its own flags: compare with what the kernel holds) */
		sigaction(SIGSEGV, NULL, &segv);
		sigaction(SIGTRAP, NULL, &trap);
		sigaction(SIGPROF, NULL, &prof);
		report("read", read_line(0, buf, sizeof(buf)), buf);
		printf("SIGSEGV %s, SIGTRAP %s, SIGPROF %s\n", same(SIGSEGV, &segv),
		       same(SIGTRAP, &trap), same(SIGPROF, &prof));
		if (!sigsetjmp(segv_jmp, 1))
			*(volatile int *)16 = 1;
		raise(SIGTRAP);
		raise(SIGPROF);
		printf("handled: %d SIGSEGV, %d SIGTRAP, %d SIGPROF\n", (int)segvs, (int)traps,
		       (int)profs);
	}
	return 0;
}
