/* SPDX-License-Identifier: MIT */
/*
 * The http provider's argument: the application's view of a request, which
 * the probes hand to D scripts and the translators of the provider support
 * file (provider-support/http.d) read at the same offsets. An application
 * owns this structure; changing it means changing the support file with it.
 */
#ifndef HTTPPROTO_H
#define HTTPPROTO_H

#include <stdint.h>

typedef struct httpproto {
	const char *http_laddr;      /* local IP address, as text */
	const char *http_raddr;      /* remote IP address, as text */
	uint16_t http_lport;         /* local port */
	uint16_t http_rport;         /* remote port */
	int32_t http_fd;             /* the connection's descriptor */
	const char *http_method;     /* "GET", "HEAD", as received */
	const char *http_uri;        /* the request target as received ("/a.txt?x=1") */
	const char *http_useragent;  /* the User-Agent header's value, "" when none */
	const char *http_version;    /* "HTTP/1.1" or "HTTP/1.0" */
	uint64_t http_bytesread;     /* bytes of the request: line and headers */
	uint64_t http_byteswritten;  /* bytes of the response, headers and body: 0 at request-start */
	uint32_t http_status;        /* the response's status: 0 at request-start */
	uint32_t http_pad;
} httpproto_t;

#endif /* HTTPPROTO_H */
