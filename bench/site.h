/* SPDX-License-Identifier: MIT */
/*
 * The function the disabled-probe benchmark calls in a loop: site.c defines
 * it once per variant, loop.c calls it.
 */
#ifndef BENCH_SITE_H
#define BENCH_SITE_H

void bench_site(int i, const char *s, long l);

#endif /* BENCH_SITE_H */
