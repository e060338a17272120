/* SPDX-License-Identifier: MIT */
/*
 * bench/output.sh's target: waits until a consumer enables obench:::req,
 * then fires it N times (its number and a URI) at most RATE a second, and
 * exits: the consumer sees exactly N records unless it drops some.
 */
#include "req.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	long rate = argc > 2 ? atol(argv[2]) : 2000000;
	static const char *const uris[] = { "/index.html", "/about.txt", "/img/logo.png",
					    "/api/v1/items?page=2" };
	struct timespec ms = { 0, 1000000 };

	fprintf(stderr, "ready\n");
	while (!OBENCH_REQ_ENABLED())
		nanosleep(&ms, NULL);
	long long start = now_ns();
	for (long i = 0; i < n; i++) {
		/* (paced, so that the buffers are read before they fill) */
		if (!(i & 1023))
			while ((now_ns() - start) * rate < (long long)i * 1000000000ll)
				;
		OBENCH_REQ(i, uris[i & 3]);
	}
	return 0;
}
