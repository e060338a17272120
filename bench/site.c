/* SPDX-License-Identifier: MIT */
/*
 * The function holding the probe site that the disabled-probe benchmark
 * measures, compiled once per variant against the "probes.h" found on the
 * include path (ours or SystemTap's): BENCH_GUARDED writes the site as
 * "if (X_ENABLED()) X(...)", BENCH_EMPTY leaves the body empty (the call alone).
 */
#include "site.h"

#ifndef BENCH_EMPTY
#include "probes.h"
#endif

__attribute__((noinline)) void bench_site(int i, const char *s, long l)
{
#if defined(BENCH_EMPTY)
	(void)i;
	(void)s;
	(void)l;
#elif defined(BENCH_GUARDED)
	if (BENCH_SITE_ENABLED())
		BENCH_SITE(i, s, l);
#else
	BENCH_SITE(i, s, l);
#endif
}
