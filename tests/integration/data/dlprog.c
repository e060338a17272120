/* SPDX-License-Identifier: MIT */
/*
 * dlprog LIB: dlopen LIB (liblnk.so of lnk_lib.c), say "ready" on stderr,
 * and wait for a line on stdin (a consumer attaches meanwhile); then call
 * its lib_work(7) (probe lnk:::hit), dlclose it, fire rt:::once(1, "after
 * dlclose") from the program itself, and print the library's result.
 */
#include <dlfcn.h>
#include <stdio.h>

#include "rt.h"

int main(int argc, char **argv)
{
	void *h = argc > 1 ? dlopen(argv[1], RTLD_NOW) : NULL;
	char line[16];

	if (!h) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return 1;
	}
	int (*fn)(int) = (int (*)(int))dlsym(h, "lib_work");
	fprintf(stderr, "ready\n");
	if (!fn || !fgets(line, sizeof(line), stdin))
		return 1;
	int r = fn(7);
	dlclose(h);
	RT_ONCE(1, "after dlclose");
	printf("result %d\n", r);
	return 0;
}
