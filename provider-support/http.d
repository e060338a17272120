/*
 * SPDX-License-Identifier: MIT
 *
 * The provider support file of the http provider (samples/http/http.d),
 * as "Anatomy of a DTrace USDT provider" describes one: the application's
 * structure, httpproto_t, exactly as samples/http/httpd.c lays it out, the
 * structure scripts see, http_reqinfo_t, and the translators from the one to
 * conninfo_t (net.d) and http_reqinfo_t. They run in the traced process when
 * a probe fires, while the application's strings are valid.
 *
 * The application's pointers are declared uintptr_t, integers as wide as
 * the process's pointers: for a 64-bit (LP64) process this is the
 * application's layout. A 32-bit (ILP32) application lays the structure out
 * with 4-byte pointers; supporting one means a second structure with
 * uint32_t in their place and translators that choose by the process's data
 * model, as DTrace's iscsi.d does (udtrace traces 64-bit processes today).
 */

#pragma D depends_on library net.d

typedef struct httpproto {
	uintptr_t http_laddr;        /* the local IP address, as text */
	uintptr_t http_raddr;        /* the remote IP address, as text */
	uint16_t http_lport;         /* the local port */
	uint16_t http_rport;         /* the remote port */
	int32_t http_fd;             /* the connection's descriptor */
	uintptr_t http_method;       /* "GET", "HEAD", as received */
	uintptr_t http_uri;          /* the request target, as received */
	uintptr_t http_useragent;    /* the User-Agent header, "" when none */
	uintptr_t http_version;      /* "HTTP/1.1", "HTTP/1.0" */
	uint64_t http_bytesread;     /* bytes of the request: line and headers */
	uint64_t http_byteswritten;  /* bytes of the response: 0 at request-start */
	uint32_t http_status;        /* the response's status: 0 at request-start */
	uint32_t http_pad;
} httpproto_t;

typedef struct http_reqinfo {
	string hri_uri;              /* the URI requested */
	string hri_method;           /* the method: "GET", "HEAD" */
	string hri_useragent;        /* the "User-Agent" header (the client) */
	string hri_version;          /* the protocol version: "HTTP/1.1" */
	uint64_t hri_bytesread;      /* bytes received from the client */
	uint64_t hri_byteswritten;   /* bytes sent to the client (request-done) */
	uint32_t hri_respcode;       /* the response's status (request-done) */
	int hri_fd;                  /* the connection's descriptor */
} http_reqinfo_t;

#pragma D binding "1.0" translator
translator conninfo_t <httpproto_t *dp> {
	ci_local = copyinstr(dp->http_laddr);
	ci_remote = copyinstr(dp->http_raddr);
	ci_protocol = "ipv4";
};

#pragma D binding "1.0" translator
translator http_reqinfo_t <httpproto_t *dp> {
	hri_uri = copyinstr(dp->http_uri);
	hri_method = copyinstr(dp->http_method);
	hri_useragent = copyinstr(dp->http_useragent);
	hri_version = copyinstr(dp->http_version);
	hri_bytesread = dp->http_bytesread;
	hri_byteswritten = dp->http_byteswritten;
	hri_respcode = dp->http_status;
	hri_fd = dp->http_fd;
};
