/* Integers of several widths, pointers, strings, names with "__", no arguments. */
provider basic {
	probe start(int count, unsigned long long id, const char *name, void *ctx);
	probe request__done(char *uri, short status, long bytes);
	probe tick();
	probe flag(_Bool on, signed char sc, string label);
};
