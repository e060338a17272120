/* SPDX-License-Identifier: MIT */
/*
 * An SDT(9) provider in a shared library (built with -DSDT_LIB as libsdt.so)
 * and a program that calls it (without): the probes' module is the
 * library's name, and the library's set and dispatch pointer are its own.
 * Built with -DSDT_DLOPEN, the program loads the library itself: it reads
 * lines from standard input, "open" (dlopen ./libsdt.so, say "opened"),
 * "close" (dlclose it, say "closed"), until the input ends.
 */
#include <udtrace/sdt.h>

#include <stdio.h>

#ifdef SDT_LIB
SDT_PROVIDER_DEFINE(lib);
SDT_PROBE_DEFINE2(lib, , , call, "int", "const char *");

void lib_call(int i, const char *s);
void lib_call(int i, const char *s)
{
	SDT_PROBE2(lib, , , call, i, s);
}
#elif defined(SDT_DLOPEN)
#include <dlfcn.h>
#include <string.h>

int main(void)
{
	char line[64];
	void *h = NULL;

	fprintf(stderr, "ready\n");
	while (fgets(line, sizeof(line), stdin)) {
		if (!strncmp(line, "open", 4) && !h) {
			h = dlopen("./libsdt.so", RTLD_NOW);
			fprintf(stderr, h ? "opened\n" : "dlopen: %s\n", h ? "" : dlerror());
		} else if (!strncmp(line, "close", 5) && h) {
			dlclose(h);
			h = NULL;
			fprintf(stderr, "closed\n");
		}
	}
	printf("done\n");
	return 0;
}
#else
void lib_call(int i, const char *s);

int main(void)
{
	lib_call(42, "from main");
	printf("done\n");
	return 0;
}
#endif
