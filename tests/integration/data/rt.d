/* Probes for the runtime and consumer tests. */

/*
 * rt:::info takes the program's structure of mem mode and gives D scripts a
 * translated rtinfo_t; the real definitions and the translator are in the
 * D suite's library directory (tests/d/lib/rt.d). These stand-ins let -h and
 * -G read the provider.
 */
typedef struct rtmem { int dummy; } rtmem_t;
typedef struct rtinfo { int dummy; } rtinfo_t;

translator rtinfo_t <rtmem_t *m> {
	dummy = 0;
};

provider rt {
	probe tick(int thread, long seq);
	probe bad(int *p);
	probe once(int x, const char *what);
	probe sig(int n);
	probe mem(void *p);
	probe info(rtmem_t *m, int n) : (rtinfo_t *m, int n, rtmem_t *m);
	/* opens mode: an open(2) wrapped in entry, steps and return (speculation's example) */
	probe open__entry(const char *path);
	probe step(int n);
	probe open__return(int fd);
	/* writes mode: write(2) wrapped in entry and return (the aggregation chapter's examples) */
	probe write__entry(int fd, const void *buf, size_t size);
	probe write__return(long ret);
	/* narrow mode: arguments of every narrow integer type */
	probe narrow(int n, unsigned char uc, unsigned short us, signed char sc, short s);
};
