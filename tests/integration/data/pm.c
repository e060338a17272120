/* SPDX-License-Identifier: MIT */
/*
 * A program of many processes for tests/integration/procs.sh and
 * bench/procs.sh, its probes from pm.d (provider postgresql) through our
 * dtrace -h and -G:
 *
 *   pm workers N K [wait|_exit]
 *                       fork N workers; worker i fires postgresql:::work(i, 0..K-1) and exits
 *                       (exit(), as a server's worker does; with _exit, _exit() at once, as
 *                       a pool's worker may: nothing of the runtime runs then); the parent waits for them, then
 *                       fires postgresql:::work(-1, 0) and prints "workers done". With wait,
 *                       it first waits (10 s at most) until work is enabled: a process that
 *                       dtrace finds after it started.
 *   pm server SOCK      a postmaster: listens on the unix socket SOCK, forks a backend per
 *                       connection; a backend fires backend-start(its number), then for each
 *                       line it reads query-start(line) and query-done(line), answering "ok";
 *                       it exits when the client closes. The server ends on SIGTERM.
 *   pm client SOCK N    connects to SOCK and sends N queries ("SELECT <i>"), each waited for
 *   pm exec K [wait]    (with wait, waits until work is enabled) fires work(0, 0), forks a
 *                       child and waits for it; the child fires work(1, 0..K-1), then execs
 *                       "pm workers 0 0 [wait]" (a new image, which fires work(-1, 0))
 *   pm idle             fires idle(0) and sleeps until stdin is closed (a process to follow)
 *   pm spawn N          forks N children running "pm idle" (their stdin: ours), waits for them
 *
 * It prints "ready <pid>" on stderr once started.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pm.h"

/* With on, wait (10 s at most) until postgresql:::work is enabled. */
static void wait_enabled(bool on)
{
	for (int i = 0; on && i < 10000 && !POSTGRESQL_WORK_ENABLED(); i++)
		usleep(1000);
}

static void workers(long n, long k, bool until_enabled, bool raw_exit)
{
	wait_enabled(until_enabled);
	for (long i = 0; i < n; i++) {
		pid_t c = fork();
		if (c < 0) {
			perror("fork");
			exit(1);
		}
		if (c == 0) {
			for (long s = 0; s < k; s++)
				POSTGRESQL_WORK((int)i, s);
			if (raw_exit)
				_exit(0);
			exit(0);
		}
	}
	while (wait(NULL) > 0)
		;
	POSTGRESQL_WORK(-1, 0);
	printf("workers done\n");
}

static int sock_addr(const char *path, struct sockaddr_un *a)
{
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(a->sun_path))
		return -1;
	strcpy(a->sun_path, path);
	return 0;
}

static void backend(int fd, int n)
{
	FILE *in = fdopen(fd, "r");
	char line[256];

	POSTGRESQL_BACKEND_START(n);
	while (in && fgets(line, sizeof(line), in)) {
		line[strcspn(line, "\n")] = '\0';
		POSTGRESQL_QUERY_START(line);
		POSTGRESQL_QUERY_DONE(line);
		if (write(fd, "ok\n", 3) != 3)
			break;
	}
	exit(0);
}

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static void server(const char *path)
{
	struct sockaddr_un a;
	int s = socket(AF_UNIX, SOCK_STREAM, 0), n = 0;
	struct sigaction sa = { .sa_handler = on_term };

	if (s < 0 || sock_addr(path, &a) || bind(s, (struct sockaddr *)&a, sizeof(a)) ||
	    listen(s, 64)) {
		perror("server");
		exit(1);
	}
	sigaction(SIGTERM, &sa, NULL); /* (no SA_RESTART: accept() returns) */
	signal(SIGCHLD, SIG_IGN);
	fprintf(stderr, "listening\n");
	while (!stop) {
		int c = accept(s, NULL, NULL);
		if (c < 0)
			continue;
		n++;
		pid_t p = fork();
		if (p == 0) {
			close(s);
			backend(c, n);
		}
		close(c);
	}
	unlink(path);
}

static void client(const char *path, long n)
{
	struct sockaddr_un a;
	int s = socket(AF_UNIX, SOCK_STREAM, 0);
	char buf[64];

	if (s < 0 || sock_addr(path, &a) || connect(s, (struct sockaddr *)&a, sizeof(a))) {
		perror("client");
		exit(1);
	}
	FILE *in = fdopen(dup(s), "r");
	for (long i = 0; i < n; i++) {
		int len = snprintf(buf, sizeof(buf), "SELECT %ld\n", i);
		if (write(s, buf, (size_t)len) != len || !fgets(buf, sizeof(buf), in)) {
			fprintf(stderr, "client: no answer\n");
			exit(1);
		}
	}
	close(s);
	printf("client done\n");
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	setvbuf(stdout, NULL, _IOLBF, 0);
	fprintf(stderr, "ready %d\n", (int)getpid());
	if (!strcmp(mode, "workers") &&
	    (argc == 4 || (argc == 5 && (!strcmp(argv[4], "wait") || !strcmp(argv[4], "_exit"))))) {
		workers(atol(argv[2]), atol(argv[3]), argc == 5 && argv[4][0] == 'w',
			argc == 5 && argv[4][0] == '_');
	} else if (!strcmp(mode, "server") && argc == 3) {
		server(argv[2]);
	} else if (!strcmp(mode, "client") && argc == 4) {
		client(argv[2], atol(argv[3]));
	} else if (!strcmp(mode, "exec") && (argc == 3 || (argc == 4 && !strcmp(argv[3], "wait")))) {
		wait_enabled(argc == 4);
		POSTGRESQL_WORK(0, 0);
		pid_t c = fork();
		if (c == 0) {
			for (long s = 0; s < atol(argv[2]); s++)
				POSTGRESQL_WORK(1, s);
			execl("/proc/self/exe", argv[0], "workers", "0", "0", argc == 4 ? argv[3] : NULL,
			      (char *)NULL);
			perror("exec");
			_exit(127);
		}
		waitpid(c, NULL, 0);
	} else if (!strcmp(mode, "idle") && argc == 2) {
		char c;
		POSTGRESQL_IDLE(0);
		while (read(0, &c, 1) > 0)
			;
	} else if (!strcmp(mode, "spawn") && argc == 3) {
		for (long i = 0; i < atol(argv[2]); i++) {
			if (fork() == 0) {
				execl("/proc/self/exe", argv[0], "idle", (char *)NULL);
				_exit(127);
			}
		}
		while (wait(NULL) > 0)
			;
	} else {
		fprintf(stderr, "usage: pm workers N K [wait|_exit] | server SOCK | client SOCK N | exec K | "
			"idle | spawn N\n");
		return 2;
	}
	return 0;
}
