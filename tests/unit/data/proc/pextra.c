/* SPDX-License-Identifier: MIT */
/* The second -G object of pchild. */
#include "pextra.h"

void pextra_tick(long n);

void pextra_tick(long n)
{
	PEXTRA_TICK(n);
}
