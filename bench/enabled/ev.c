/* SPDX-License-Identifier: MIT */
/*
 * The program of the enabled-probe benchmark:
 *
 *   ev N [THREADS [RATE [WARM [PAUSE_MS]]]]
 *
 * starts THREADS threads (default 1) that each fire the probe bench:ev with
 * three integer arguments (the event's index, the thread's index, their xor)
 * N times: in a tight loop, or paced at RATE events per second per thread
 * when RATE > 0 (busy-waiting on clock_gettime, catching up after a
 * preemption). With WARM > 0, each thread first fires WARM untimed passes of
 * N events, each followed by a pause of PAUSE_MS milliseconds (default 1000)
 * in which the tracer can drain them: the timed pass then writes into buffer
 * memory that is already resident. Each thread times its pass with
 * CLOCK_MONOTONIC (wall) and CLOCK_THREAD_CPUTIME_ID (its own CPU time) and
 * counts its minor page faults (getrusage RUSAGE_THREAD). Prints a line per
 * thread and then
 *
 *   RESULT threads=T events=E fired=A ns=W cpu_ns=C best_ns=B secs=S faults=F insns=I
 *
 * E: timed events of all threads; A: all events fired, warm-up included;
 * W and C: the mean over threads of wall and CPU ns per timed event; B: the
 * mean over threads of the wall ns per event of the fastest of the SLICES
 * slices a tight pass is timed in (the one least disturbed); S: the longest
 * thread's wall seconds; F: the page faults of the timed passes (a tracer's
 * buffer memory touched for the first time); I: the mean over threads of
 * the user-mode instructions retired per timed event (a perf event of the
 * thread's own; -1 where perf events are not allowed): what a CPU's speed,
 * and a shared machine's noise, do not change.
 *
 * The probe site is chosen when compiling: BENCH_UDTRACE (our dtrace -h
 * header, "probes.h"), BENCH_SDT (SystemTap's <sys/sdt.h>, no semaphore) or
 * BENCH_LTTNG (the LTTng-UST tracepoint of tp.h), or BENCH_FLOOR (no tracer:
 * the least an in-process recorder must do, x86-64 only), or BENCH_PIDFN (no
 * probe: a call of pidfn_leaf(), for the pid provider). With BENCH_STR
 * too (udtrace and LTTng), the event is bench:evs instead: the event's
 * index and a 32-byte string.
 */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#if defined(BENCH_STR)
/* the string payload: 32 bytes and a NUL */
static const char payload[] = "GET /index.html?user=1234567890A";
_Static_assert(sizeof(payload) == 33, "a 32-byte string");
#endif

#if defined(BENCH_UDTRACE) && defined(BENCH_STR)
#include "probes.h"
#define FIRE(a, b, c) do { (void)(b); (void)(c); BENCH_EVS((a), payload); } while (0)
#elif defined(BENCH_LTTNG) && defined(BENCH_STR)
#include "tp.h"
#define FIRE(a, b, c) do { (void)(b); (void)(c); tracepoint(bench, evs, (a), payload); } while (0)
#elif defined(BENCH_UDTRACE)
#include "probes.h"
#define FIRE(a, b, c) BENCH_EV((a), (b), (c))
#elif defined(BENCH_SDT)
#include <sys/sdt.h>
#define FIRE(a, b, c) STAP_PROBE3(bench, ev, (a), (b), (c))
#elif defined(BENCH_LTTNG)
#include "tp.h"
#define FIRE(a, b, c) tracepoint(bench, ev, (a), (b), (c))
#elif defined(BENCH_FLOOR)
/*
 * The floor: what any in-process recorder of this event must do at least,
 * and nothing more: read the TSC and write a 48-byte record (a header word,
 * the timestamp, a word for the CPU, the three values) into a 4 MiB ring of
 * the thread's own. No call, no check, no consumer.
 */
#include <stdint.h>
#include <x86intrin.h>
#define FLOOR_WORDS ((4u << 20) / 8)
static __thread uint64_t *floor_ring;
static __thread unsigned floor_off;
static inline void floor_fire(long a, long b, long c)
{
	if (!floor_ring && !(floor_ring = calloc(FLOOR_WORDS, 8)))
		abort();
	uint64_t *r = floor_ring + floor_off;
	r[0] = 48 | (1ull << 32);
	r[1] = __rdtsc();
	r[2] = 0;
	r[3] = (uint64_t)a;
	r[4] = (uint64_t)b;
	r[5] = (uint64_t)c;
	floor_off = floor_off + 12 > FLOOR_WORDS ? 0 : floor_off + 6;
	__asm__ __volatile__("" ::: "memory");
}
#define FIRE(a, b, c) floor_fire((a), (b), (c))
#elif defined(BENCH_PIDFN)
/* no probe: a call of a small function, which the pid provider traces (bench/pid.sh) */
static volatile long pidfn_sink;
__attribute__((noinline, noclone)) long pidfn_leaf(long a, long b, long c)
{
	return a ^ b ^ c;
}
#define FIRE(a, b, c) (pidfn_sink += pidfn_leaf((a), (b), (c)))
#else
#error "define BENCH_UDTRACE, BENCH_SDT, BENCH_LTTNG, BENCH_FLOOR or BENCH_PIDFN"
#endif

#define MAX_THREADS 64
#define SLICES 10

struct worker {
	pthread_t th;
	long id;
	double wall_ns;
	double cpu_ns;
	double best_ns;
	long faults;
	double insns;             /* user-mode instructions of the timed passes; -1: not counted */
};

static long n_events;
static double rate;
static long warm_passes;
static long pause_ms = 1000;
static pthread_barrier_t start_line;

static double clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Fire events from to to as fast as possible. */
static __attribute__((noinline)) void tight(long id, long from, long to)
{
	long k;

	for (k = from; k < to; k++)
		FIRE(k, id, k ^ id);
}

/* Fire n events at rate per second from t0: every event due by now, then look again. */
static __attribute__((noinline)) void paced(long id, long n, double t0)
{
	long k = 0, due;

	while (k < n) {
		due = (long)((clock_ns(CLOCK_MONOTONIC) - t0) * rate / 1e9) + 1;
		if (due > n)
			due = n;
		for (; k < due; k++)
			FIRE(k, id, k ^ id);
	}
}

/* A counter of this thread's user-mode instructions, or -1. */
static int insn_counter(void)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_INSTRUCTIONS;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
}

static double insn_read(int fd)
{
	long long v = 0;

	return fd >= 0 && read(fd, &v, sizeof(v)) == (ssize_t)sizeof(v) ? (double)v : -1;
}

/* This thread's minor page faults so far. */
static long thread_faults(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru))
		return 0;
	return ru.ru_minflt;
}

static void *work(void *arg)
{
	struct worker *w = arg;
	double t0, c0;
	long f0, p, s;

	for (p = 0; p < warm_passes; p++) {
		struct timespec ts = { pause_ms / 1000, (pause_ms % 1000) * 1000000 };

		tight(w->id, 0, n_events);
		nanosleep(&ts, NULL);
	}
	int ifd = insn_counter();
	pthread_barrier_wait(&start_line);
	double i0 = insn_read(ifd);
	f0 = thread_faults();
	t0 = clock_ns(CLOCK_MONOTONIC);
	c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	if (rate > 0) {
		paced(w->id, n_events, t0);
	} else {
		for (s = 0; s < SLICES; s++) {
			long from = n_events * s / SLICES, to = n_events * (s + 1) / SLICES;
			double t1 = clock_ns(CLOCK_MONOTONIC), ns;

			tight(w->id, from, to);
			ns = (clock_ns(CLOCK_MONOTONIC) - t1) / (double)(to > from ? to - from : 1);
			if (s == 0 || ns < w->best_ns)
				w->best_ns = ns;
		}
	}
	w->cpu_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
	w->wall_ns = clock_ns(CLOCK_MONOTONIC) - t0;
	w->faults = thread_faults() - f0;
	double i1 = insn_read(ifd);
	w->insns = i0 >= 0 && i1 >= 0 ? i1 - i0 : -1;
	if (ifd >= 0)
		close(ifd);
	return NULL;
}

int main(int argc, char **argv)
{
	static struct worker w[MAX_THREADS];
	double wall = 0, cpu = 0, best = 0, longest = 0, insns = 0;
	long nthreads = 1, faults = 0, i;

	if (argc < 2 || (n_events = atol(argv[1])) <= 0) {
		fprintf(stderr, "usage: %s N [THREADS [RATE [WARM [PAUSE_MS]]]]\n", argv[0]);
		return 2;
	}
	if (argc > 2)
		nthreads = atol(argv[2]);
	if (argc > 3)
		rate = atof(argv[3]);
	if (argc > 4)
		warm_passes = atol(argv[4]);
	if (argc > 5)
		pause_ms = atol(argv[5]);
	if (nthreads < 1 || nthreads > MAX_THREADS || warm_passes < 0 || pause_ms < 0) {
		fprintf(stderr, "%s: THREADS must be 1 to %d, WARM and PAUSE_MS at least 0\n",
			argv[0], MAX_THREADS);
		return 2;
	}
	pthread_barrier_init(&start_line, NULL, (unsigned)nthreads);
	for (i = 0; i < nthreads; i++) {
		w[i].id = i;
		if (pthread_create(&w[i].th, NULL, work, &w[i])) {
			fprintf(stderr, "%s: pthread_create failed\n", argv[0]);
			return 1;
		}
	}
	for (i = 0; i < nthreads; i++) {
		pthread_join(w[i].th, NULL);
		printf("thread %ld: %ld events, %.3f ns/event wall, %.3f ns/event cpu, %ld page faults\n",
		       i, n_events, w[i].wall_ns / (double)n_events, w[i].cpu_ns / (double)n_events,
		       w[i].faults);
		wall += w[i].wall_ns / (double)n_events;
		cpu += w[i].cpu_ns / (double)n_events;
		best += w[i].best_ns;
		faults += w[i].faults;
		insns = insns < 0 || w[i].insns < 0 ? -1 : insns + w[i].insns / (double)n_events;
		if (w[i].wall_ns > longest)
			longest = w[i].wall_ns;
	}
	printf("RESULT threads=%ld events=%ld fired=%ld ns=%.3f cpu_ns=%.3f best_ns=%.3f secs=%.3f "
	       "faults=%ld insns=%.1f\n",
	       nthreads, n_events * nthreads, n_events * nthreads * (warm_passes + 1),
	       wall / (double)nthreads, cpu / (double)nthreads, best / (double)nthreads,
	       longest / 1e9, faults, insns < 0 ? -1.0 : insns / (double)nthreads);
	return 0;
}
