/* SPDX-License-Identifier: MIT */
/*
 * A short tour of the http provider: fires each probe as a server would, for
 * a handful of simulated requests, with the application's own httpproto_t.
 * (The instrumented HTTP server replaces it in samples/http; see issue #5.)
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "http_provider.h"

/* The application's structure, as the provider support file will describe it. */
typedef struct {
	const char *http_laddr;     /* local IP address (as a string) */
	const char *http_uri;       /* URI requested */
	const char *http_useragent; /* the User-Agent header */
	uint64_t http_byteswritten; /* bytes written to the client */
	int http_status;
} httpproto_t;

static const char *const uris[] = { "/", "/index.html", "/style.css", "/missing" };

int main(void)
{
	for (int fd = 5; fd < 7; fd++) {
		unsigned long served = 0;

		HTTP_CONN_ACCEPT(fd, "127.0.0.1:40000");
		for (size_t i = 0; i < sizeof(uris) / sizeof(uris[0]); i++, served++) {
			httpproto_t hh = { "127.0.0.1", uris[i], "tour/1.0", 0, 0 };

			/* fill in the structure only when someone listens */
			if (HTTP_REQUEST_START_ENABLED())
				HTTP_REQUEST_START(&hh);
			hh.http_status = strcmp(uris[i], "/missing") ? 200 : 404;
			hh.http_byteswritten = 100 + 10 * i;
			if (HTTP_REQUEST_DONE_ENABLED())
				HTTP_REQUEST_DONE(&hh);
		}
		HTTP_CONN_CLOSE(fd, served);
	}
	puts("tour: 2 connections, 8 requests");
	return 0;
}
