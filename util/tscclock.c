/* SPDX-License-Identifier: MIT */
/*
 * Time: CLOCK_MONOTONIC, and the calibration that lets the runtime read the
 * time-stamp counter instead.
 *
 * Every record carries a timestamp, so the clock is on the probe path:
 * clock_gettime() through the vDSO costs 20 to 30 ns (more under a
 * hypervisor), a third of an enabled probe. Where the kernel itself keeps
 * time with the TSC (clocksource "tsc": invariant, synchronized across CPUs,
 * checked by the kernel at boot and while it runs), the runtime reads the
 * TSC and converts it with a multiplier the consumer measures here: two
 * (TSC, CLOCK_MONOTONIC) pairs at least CAL_NS apart. Each pair is the
 * tightest of a few TSC reads bracketing one clock_gettime(), so the
 * multiplier is good to about a part per million; timestamps then run at the
 * TSC's rate from CLOCK_MONOTONIC's value at attach (NTP does not slew them,
 * like DTrace's gethrtime()). UDTRACE_CLOCK=monotonic turns this off.
 *
 * The runtime records the TSC as it reads it, and dtrace scales each
 * record's timestamp (a multiply less on the probe path: docs/benchmarks.md);
 * the deadman's deadline is given to the runtime in TSC ticks too.
 */
#include "util/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CAL_NS 10000000ull /* 10 ms between the two pairs */

#if defined(__x86_64__)
static uint64_t rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

/* Does the kernel keep time with the TSC (so it trusts it), and may we? */
static bool tsc_usable(void)
{
	const char *env = getenv("UDTRACE_CLOCK");
	char buf[32] = "";
	FILE *f;

	if (env && !strcmp(env, "monotonic"))
		return false;
	f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
	if (!f)
		return false;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	return !strcmp(buf, "tsc\n");
}

/* A (TSC, CLOCK_MONOTONIC) pair: the TSC in the middle of the tightest bracket of 8. */
static struct udt_clock_pt sample(void)
{
	struct udt_clock_pt best = { 0, 0, 0 };
	uint64_t width = UINT64_MAX;

	for (int i = 0; i < 8; i++) {
		uint64_t t0 = rdtsc(), ns = udt__now_ns(), t1 = rdtsc();

		if (t1 > t0 && t1 - t0 < width) {
			width = t1 - t0;
			best = (struct udt_clock_pt){ t0 + (t1 - t0) / 2, ns, 1 };
		}
	}
	return best;
}
#endif

void udt__clock_start(struct udt_clock_pt *a)
{
	*a = (struct udt_clock_pt){ 0, 0, 0 };
#if defined(__x86_64__)
	if (tsc_usable())
		*a = sample();
#endif
}

uint64_t udt__clock_ns(const struct udt_clock_cal *cal, uint64_t reading)
{
	if (!cal->tsc_mult)
		return reading;
	/* (as the runtime computed it before: a reading just before the base is negative) */
	int64_t d = (int64_t)(reading - cal->tsc_base);
	return cal->tsc_ns + (uint64_t)(((__int128)d * cal->tsc_mult) >> 32);
}

uint64_t udt__clock_reading(const struct udt_clock_cal *cal, uint64_t ns)
{
	if (!cal->tsc_mult)
		return ns;
	if (ns <= cal->tsc_ns)
		return cal->tsc_base; /* (before the calibration: only later times are asked for) */
	unsigned __int128 d = ((unsigned __int128)(ns - cal->tsc_ns) << 32) / cal->tsc_mult;
	return d >= UINT64_MAX - cal->tsc_base ? UINT64_MAX : cal->tsc_base + (uint64_t)d;
}

void udt__clock_finish(const struct udt_clock_pt *a, struct udt_clock_cal *cal)
{
	*cal = (struct udt_clock_cal){ 0, 0, 0 };
#if defined(__x86_64__)
	if (!a->valid)
		return;
	uint64_t since = udt__now_ns() - a->ns;
	if (since < CAL_NS) {
		struct timespec ts = { 0, (long)(CAL_NS - since) };
		nanosleep(&ts, NULL);
	}
	struct udt_clock_pt b = sample();
	if (!b.valid || b.tsc <= a->tsc || b.ns <= a->ns)
		return;
	unsigned __int128 mult = ((unsigned __int128)(b.ns - a->ns) << 32) / (b.tsc - a->tsc);
	/* a TSC slower than 1 MHz or faster than 100 GHz is not one to trust */
	if (mult == 0 || mult > ((unsigned __int128)1000 << 32) || mult < ((unsigned __int128)1 << 32) / 100)
		return;
	*cal = (struct udt_clock_cal){ b.tsc, b.ns, (uint64_t)mult };
#else
	(void)a;
#endif
}
