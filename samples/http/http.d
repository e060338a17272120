/*
 * SPDX-License-Identifier: MIT
 *
 * The http provider of samples/http, laid out as "Anatomy of a DTrace USDT
 * provider" describes: the application fires its probes with an httpproto_t
 * (its own structure); D scripts see a conninfo_t and an http_reqinfo_t,
 * made by the translators of the provider support file (provider-support/
 * http.d) at fire time. The structures and translators below are dummies:
 * dtrace -h and -G do not need them, but DTrace's own compiler insists on
 * them, and keeping them lets this file go through either.
 */

typedef struct httpproto { int dummy; } httpproto_t;
typedef struct conninfo { int dummy; } conninfo_t;
typedef struct http_reqinfo { int dummy; } http_reqinfo_t;

translator conninfo_t <httpproto_t *dp> {
	dummy = 0;
};

translator http_reqinfo_t <httpproto_t *dp> {
	dummy = 0;
};

provider http {
	/* a request was read and is about to be served */
	probe request__start(httpproto_t *p) :
	    (conninfo_t *p, http_reqinfo_t *p);
	/* the response was written */
	probe request__done(httpproto_t *p) :
	    (conninfo_t *p, http_reqinfo_t *p);
	/* a connection was accepted: its descriptor and the peer's address */
	probe conn__accept(int fd, const char *remote);
	/* a connection was closed after serving requests */
	probe conn__close(int fd, unsigned long requests);
};

#pragma D attributes Evolving/Evolving/ISA provider http provider
#pragma D attributes Private/Private/Unknown provider http module
#pragma D attributes Private/Private/Unknown provider http function
#pragma D attributes Private/Private/ISA provider http name
#pragma D attributes Evolving/Evolving/ISA provider http args
