/*
 * A library the profile tests' program dlopen()s after dtrace attached
 * (profprog dlopen): its functions must be named in the stacks.
 */
#include <time.h>

static volatile double sink;

__attribute__((noinline)) static void lib_burn(void)
{
	for (int i = 0; i < 100000; i++)
		sink = sink * 1.0000001 + 1;
}

void lib_spin(double secs);

void lib_spin(double secs)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		lib_burn();
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) * 1e-9 < secs);
}
