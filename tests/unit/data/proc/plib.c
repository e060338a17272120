/* SPDX-License-Identifier: MIT */
/* A shared library with probes, linked by pchild (and a copy of it dlopen'ed). */
#include "plib.h"

int plib_work(int n);
int plib_enabled(void);

int plib_work(int n)
{
	PLIB_FIRE(n);
	return n + 1;
}

int plib_enabled(void)
{
	return PLIB_FIRE_ENABLED() ? 1 : 0;
}
