/* SPDX-License-Identifier: MIT */
/*
 * The target process of tests/unit/test_proc.c: probes in the executable
 * (two -G objects) and in a linked library. It prints "ready N" and then
 * serves commands read from stdin, one per line, until EOF:
 *   dlopen PATH   dlopen a library, print "ok" or the error
 *   enabled       print whether pexe:::start and plib:::fire are enabled ("1 0")
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "pexe.h"

int plib_work(int n);
int plib_enabled(void);
void pextra_tick(long n);
void pchild_work(int n);

__attribute__((noinline)) void pchild_work(int n)
{
	PEXE_START(n);
	PEXE_TWO_WORDS("two words");
	pextra_tick(n);
}

int main(void)
{
	char line[4200];

	pchild_work(1);
	printf("ready %d\n", plib_work(1));
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "dlopen ", 7)) {
			void *h = dlopen(line + 7, RTLD_NOW);

			printf("%s\n", h ? "ok" : dlerror());
		} else if (!strcmp(line, "enabled")) {
			printf("%d %d\n", PEXE_START_ENABLED() ? 1 : 0, plib_enabled());
		} else {
			printf("unknown command\n");
		}
		fflush(stdout);
	}
	return 0;
}
