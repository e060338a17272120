/* SPDX-License-Identifier: MIT */
/*
 * The program of tests/integration/late.sh: it loads an instrumented
 * library (its first argument: liblate.so of late_lib.c) only when told,
 * after a consumer attached. It reads commands from standard input, one a
 * line, and says "ready" on standard error once started:
 *
 *   open     dlopen() the library                          -> "opened"
 *   openwork N
 *            dlopen() it and at once fire its probes N times
 *            (lib_work: DTrace enables them inside dlopen()) -> "opened worked N"
 *   wait [MS] [tick|enter]
 *            wait (at most MS ms, 20000 by default) until the library's
 *            late:::enter and sdtlate:::tick are enabled (with "tick" or
 *            "enter": that one only)                       -> "enabled" or "not enabled"
 *   work N   fire rt:::tick(0, N) in the program, the library's probes N
 *            times (lib_work), then rt:::once(N, "main")   -> "worked N"
 *   sems     the library's semaphores and rt:::tick's      -> "sems A B C main M"
 *   close    dlclose() it                                  -> "closed"
 *   tick     fire rt:::tick(1, 0)                          -> "ticked"
 *   sleep N  sleep N ms                                    -> "slept"
 *   churn N  N times: dlopen, lib_work(1), dlclose, with no wait
 *            (the consumer sees some of the loads, or none)  -> "churned N"
 * and exits 0 at the end of its input.
 */
#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rt.h"

static void *lib;
static int (*lib_work)(int);
static void (*lib_sems)(unsigned *);

static void say(const char *fmt, long v)
{
	printf(fmt, v);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	char line[64];

	if (argc < 2)
		return 2;
	fprintf(stderr, "ready\n");
	while (fgets(line, sizeof(line), stdin)) {
		long n = atol(line + strcspn(line, " ") + (line[strcspn(line, " ")] == ' '));
		unsigned s[3] = { 0, 0, 0 };

		if (!strncmp(line, "open", 4)) {
			lib = dlopen(argv[1], RTLD_NOW);
			if (!lib) {
				fprintf(stderr, "dlopen: %s\n", dlerror());
				return 1;
			}
			lib_work = (int (*)(int))dlsym(lib, "lib_work");
			lib_sems = (void (*)(unsigned *))dlsym(lib, "lib_sems");
			if (!strncmp(line, "openwork", 8)) {
				lib_work((int)n);
				say("opened worked %ld\n", n);
			} else {
				say("opened\n", 0);
			}
		} else if (!strncmp(line, "wait", 4)) {
			struct timespec ms = { 0, 1000000 };
			bool tick_only = strstr(line, "tick"), enter_only = strstr(line, "enter");
			long i, bound = n > 0 ? n : 20000;
			for (i = 0; i < bound; i++) {
				lib_sems(s);
				if (enter_only ? s[0] : (s[0] || tick_only) && s[2])
					break;
				nanosleep(&ms, NULL);
			}
			say(i < bound ? "enabled\n" : "not enabled\n", 0);
		} else if (!strncmp(line, "work", 4)) {
			RT_TICK(0, n);
			lib_work((int)n);
			RT_ONCE((int)n, "main");
			say("worked %ld\n", n);
		} else if (!strncmp(line, "sems", 4)) {
			lib_sems(s);
			printf("sems %u %u %u main %d\n", s[0], s[1], s[2], RT_TICK_ENABLED() ? 1 : 0);
			fflush(stdout);
		} else if (!strncmp(line, "close", 5)) {
			dlclose(lib);
			lib = NULL;
			say("closed\n", 0);
		} else if (!strncmp(line, "tick", 4)) {
			RT_TICK(1, 0);
			say("ticked\n", 0);
		} else if (!strncmp(line, "churn", 5)) {
			for (long i = 0; i < n; i++) {
				void *h = dlopen(argv[1], RTLD_NOW);
				if (!h)
					return 1;
				((int (*)(int))dlsym(h, "lib_work"))(1);
				dlclose(h);
			}
			say("churned %ld\n", n);
		} else if (!strncmp(line, "sleep", 5)) {
			struct timespec ts = { n / 1000, (n % 1000) * 1000000 };
			nanosleep(&ts, NULL);
			say("slept\n", 0);
		}
	}
	return 0;
}
