/* SPDX-License-Identifier: MIT */
/*
 * killmid TARGET VICTIM DELAY_US: wait (10 s at most) until process TARGET
 * has a tracer (/proc/TARGET/status's TracerPid), then DELAY_US microseconds
 * more, and SIGKILL process VICTIM: a dtrace killed while it (or its child)
 * is making a call in TARGET (tests/integration/inject.sh, tests/soak). A
 * shell's loop is too slow for the few milliseconds a call takes. Prints
 * "traced" if TARGET still had a tracer just before the kill, else
 * "untraced"; exits 1 if it never had one.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int tracer(const char *path)
{
	char buf[4096];
	int fd = open(path, O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	const char *t;

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	t = strstr(buf, "TracerPid:");
	return t ? atoi(t + 10) : 0;
}

int main(int argc, char **argv)
{
	char path[64];
	struct timespec d;
	long us;
	int i;

	if (argc != 4) {
		fprintf(stderr, "usage: killmid TARGET VICTIM DELAY_US\n");
		return 2;
	}
	snprintf(path, sizeof(path), "/proc/%s/status", argv[1]);
	for (i = 0; i < 1000000 && tracer(path) == 0; i++) {
		d = (struct timespec){ 0, 10000 };
		nanosleep(&d, NULL);
	}
	if (tracer(path) <= 0) {
		kill(atoi(argv[2]), SIGKILL);
		printf("never traced\n");
		return 1;
	}
	us = atol(argv[3]);
	d = (struct timespec){ us / 1000000, us % 1000000 * 1000 };
	if (us)
		nanosleep(&d, NULL);
	i = tracer(path) > 0;
	kill(atoi(argv[2]), SIGKILL);
	printf("%s\n", i ? "traced" : "untraced");
	return 0;
}
