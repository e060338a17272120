/* Probes for the runtime and consumer tests. */
provider rt {
	probe tick(int thread, long seq);
	probe bad(int *p);
	probe once(int x, const char *what);
	probe sig(int n);
	probe mem(void *p);
};
