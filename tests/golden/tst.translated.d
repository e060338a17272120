/*
 * The pattern of "Anatomy of a DTrace USDT provider": dummy structures and
 * translators in the provider file, translated arguments mapped by name,
 * stability attributes after the provider.
 */
typedef struct httpproto { int dummy; } httpproto_t;
typedef struct conninfo { int dummy; } conninfo_t;
typedef struct http_reqinfo { int dummy; } http_reqinfo_t;

translator conninfo_t <httpproto_t *dp> {
	dummy = 0;
};

translator http_reqinfo_t <httpproto_t *dp> {
	dummy = dp->dummy;
};

provider http {
	probe request__start(httpproto_t *p) :
	    (conninfo_t *p, http_reqinfo_t *p);
	probe request__done(httpproto_t *p) :
	    (conninfo_t *p, http_reqinfo_t *p);
	probe conn(int fd, struct sockaddr *sa) : (struct sockaddr *sa, int fd);
};

#pragma D attributes Evolving/Evolving/ISA provider http provider
#pragma D attributes Private/Private/Unknown provider http module
#pragma D attributes Private/Private/Unknown provider http function
#pragma D attributes Private/Private/ISA provider http name
#pragma D attributes Evolving/Evolving/ISA provider http args
