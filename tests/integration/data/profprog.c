/*
 * The profile provider tests' program (tests/integration/profile.sh). Usage:
 *   profprog MODE [SECS] [N]
 * MODE:
 *   spin      burn CPU in main for SECS seconds (default 3); print the CPU time used
 *   threads   wait for a line on stdin, then run N threads that burn CPU for SECS
 *             while main waits in pthread_join (a census must find them)
 *   sleep     sleep SECS in one nanosleep(); print how long it slept and its errno
 *   signals   the application's own SIGPROF (ITIMER_PROF, 100 Hz of CPU) and SIGALRM
 *             (ITIMER_REAL, 50 Hz) handlers, with SA_RESTART, while main burns CPU and
 *             reads a pipe a thread writes every millisecond, for SECS; print the
 *             counts of its signals, of SIGPROFs that were not its own, and of EINTRs
 *   errno     set errno to 4321 and burn CPU for SECS, checking it never changes
 *   regs      (x86-64) burn CPU for SECS in a loop that keeps sentinel values in
 *             rbx, rsi, rdi, r8-r10, r12-r15 and xmm6-xmm15 and checks them each turn
 *   hot       for SECS, main -> work -> hot -> burn (7 units) and work -> cold -> burn
 *             (3 units): hot()'s stacks take 70% of the CPU
 *   work      the same N times (argv[3]) instead of for SECS; print the CPU time it took
 *             (bench/profile.sh)
 *   dlopen    wait for a line on stdin, then dlopen() the library N names (argv[3])
 *             and run its lib_spin(SECS)
 *   corrupt   for SECS, burn CPU in victim(), whose frame (built with a frame
 *             pointer, as its caller corrupt()'s) says the caller's frame pointer is
 *             0x7ff000001230 (unmapped), then that its return address is 0x10, then
 *             that the frame pointer points to itself; print "survived" at the end
 * It says "ready <pid>" on stderr once started; results go to stdout.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static volatile double sink;
static double secs = 3;

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double cpu_secs(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

__attribute__((noinline)) static void burn(int units)
{
	for (int i = 0; i < units * 10000; i++)
		sink = sink * 1.0000001 + 1;
}

static void burn_for(double s)
{
	double end = now() + s;

	while (now() < end)
		burn(10);
}

static void *burner(void *arg)
{
	(void)arg;
	burn_for(secs);
	return NULL;
}

/* -- hot and corrupt ---------------------------------------------------------------------- */

/* Not tail calls: each keeps its frame in the stack. */
__attribute__((noinline)) static void hot(void)
{
	burn(7);
	sink += 1;
}

__attribute__((noinline)) static void cold(void)
{
	burn(3);
	sink += 1;
}

__attribute__((noinline)) static void work(long turns)
{
	double end = now() + secs;

	for (long i = 0; turns ? i < turns : now() < end; i++) {
		hot();
		cold();
	}
}

/*
 * A frame built with a frame pointer whose saved slots are wrong while it
 * runs; its caller's frame is found from that frame pointer too (its call
 * frame information says so), so the unwinder must read where it points.
 */
__attribute__((noinline, optimize("no-omit-frame-pointer"))) static void victim(int how, double s)
{
	void *volatile *fp = __builtin_frame_address(0);
	void *saved_fp = fp[0], *saved_ra = fp[1];
	double end = now() + s;

	if (how == 0)
		fp[0] = (void *)(uintptr_t)0x7ff000001230ull; /* the caller's frame: unmapped */
	else if (how == 1)
		fp[1] = (void *)(uintptr_t)0x10;              /* the return address: no code */
	else
		fp[0] = (void *)fp;                           /* the chain: a loop */
	while (now() < end)
		burn(1);
	fp[0] = saved_fp;
	fp[1] = saved_ra;
}

__attribute__((noinline, optimize("no-omit-frame-pointer"))) static void corrupt(void)
{
	for (int how = 0; how < 3; how++)
		victim(how, secs / 3);
	sink += 1;
}

/* -- signals ------------------------------------------------------------------------------- */

static volatile sig_atomic_t nprof, nalrm, nforeign;
static int pipefd[2];
static volatile int writing = 1;

static void on_prof(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	/* setitimer's signals come from the kernel; anything else would be someone else's */
	if (si->si_code == SI_KERNEL)
		nprof++;
	else
		nforeign++;
}

static void on_alrm(int sig)
{
	(void)sig;
	nalrm++;
}

static void *writer(void *arg)
{
	struct timespec ms = { 0, 1000000 };

	(void)arg;
	while (writing) {
		if (write(pipefd[1], "x", 1) < 0 && errno != EINTR)
			break;
		nanosleep(&ms, NULL);
	}
	close(pipefd[1]);
	return NULL;
}

static int signals(void)
{
	struct sigaction sa;
	struct itimerval prof = { { 0, 10000 }, { 0, 10000 } }, alrm = { { 0, 20000 }, { 0, 20000 } };
	long eintr = 0, reads = 0;
	pthread_t w;
	char c;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_prof;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaction(SIGPROF, &sa, NULL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alrm;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	if (pipe(pipefd))
		return 1;
	pthread_create(&w, NULL, writer, NULL);
	setitimer(ITIMER_PROF, &prof, NULL);
	setitimer(ITIMER_REAL, &alrm, NULL);
	fprintf(stderr, "ready %d\n", (int)getpid());
	double end = now() + secs;
	while (now() < end) {
		burn(20);
		ssize_t n = read(pipefd[0], &c, 1);
		if (n < 0 && errno == EINTR)
			eintr++;
		else if (n == 1)
			reads++;
	}
	writing = 0;
	memset(&prof, 0, sizeof(prof));
	setitimer(ITIMER_PROF, &prof, NULL);
	setitimer(ITIMER_REAL, &prof, NULL);
	while (read(pipefd[0], &c, 1) > 0)
		;
	pthread_join(w, NULL);
	printf("prof=%d alrm=%d foreign=%d eintr=%ld reads=%ld cpu=%.2f\n", (int)nprof, (int)nalrm,
	       (int)nforeign, eintr, reads, cpu_secs());
	return 0;
}

/* -- regs ---------------------------------------------------------------------------------- */

#if defined(__x86_64__)
static const uint64_t sentinel[] = {
	0x1111111111111111ull, 0x2222222222222222ull, 0x3333333333333333ull,
	0x4444444444444444ull, 0x5555555555555555ull, 0x6666666666666666ull,
	0x7777777777777777ull, 0x8888888888888888ull, 0x9999999999999999ull,
	0xaaaaaaaaaaaaaaaaull,
};

/* Run n turns with sentinels in registers; the number of turns that found one changed. */
static long regs_turns(long n)
{
	long bad;

	__asm__ __volatile__(
		"mov 0(%[s]), %%rbx\n\t"
		"mov 8(%[s]), %%rsi\n\t"
		"mov 16(%[s]), %%rdi\n\t"
		"mov 24(%[s]), %%r8\n\t"
		"mov 32(%[s]), %%r9\n\t"
		"mov 40(%[s]), %%r10\n\t"
		"mov 48(%[s]), %%r12\n\t"
		"mov 56(%[s]), %%r13\n\t"
		"mov 64(%[s]), %%r14\n\t"
		"mov 72(%[s]), %%r15\n\t"
		"movq 0(%[s]), %%xmm6\n\t"
		"movq 8(%[s]), %%xmm7\n\t"
		"movq 16(%[s]), %%xmm8\n\t"
		"movq 24(%[s]), %%xmm9\n\t"
		"movq 32(%[s]), %%xmm10\n\t"
		"movq 40(%[s]), %%xmm11\n\t"
		"movq 48(%[s]), %%xmm12\n\t"
		"movq 56(%[s]), %%xmm13\n\t"
		"movq 64(%[s]), %%xmm14\n\t"
		"movq 72(%[s]), %%xmm15\n\t"
		"xor %[bad], %[bad]\n\t"
		"1:\n\t"
		"xor %%eax, %%eax\n\t"
		"cmp 0(%[s]), %%rbx\n\t setne %%al\n\t or %%rax, %[bad]\n\t"
		"cmp 8(%[s]), %%rsi\n\t setne %%al\n\t or %%rax, %[bad]\n\t"
		"cmp 16(%[s]), %%rdi\n\t setne %%al\n\t or %%rax, %[bad]\n\t"
		"cmp 24(%[s]), %%r8\n\t setne %%al\n\t or %%rax, %[bad]\n\t"
		"cmp 32(%[s]), %%r9\n\t setne %%al\n\t or %%rax, %[bad]\n\t"
		"cmp 40(%[s]), %%r10\n\t setne %%al\n\t or %%rax, %[bad]\n\t"
		"cmp 48(%[s]), %%r12\n\t setne %%al\n\t or %%rax, %[bad]\n\t"
		"cmp 56(%[s]), %%r13\n\t setne %%al\n\t or %%rax, %[bad]\n\t"
		"cmp 64(%[s]), %%r14\n\t setne %%al\n\t or %%rax, %[bad]\n\t"
		"cmp 72(%[s]), %%r15\n\t setne %%al\n\t or %%rax, %[bad]\n\t"
		"movq %%xmm6, %%rdx\n\t cmp 0(%[s]), %%rdx\n\t setne %%al\n\t or %%rax, %[bad]\n\t"
		"movq %%xmm7, %%rdx\n\t cmp 8(%[s]), %%rdx\n\t setne %%al\n\t or %%rax, %[bad]\n\t"
		"movq %%xmm8, %%rdx\n\t cmp 16(%[s]), %%rdx\n\t setne %%al\n\t or %%rax, %[bad]\n\t"
		"movq %%xmm9, %%rdx\n\t cmp 24(%[s]), %%rdx\n\t setne %%al\n\t or %%rax, %[bad]\n\t"
		"movq %%xmm10, %%rdx\n\t cmp 32(%[s]), %%rdx\n\t setne %%al\n\t or %%rax, %[bad]\n\t"
		"movq %%xmm11, %%rdx\n\t cmp 40(%[s]), %%rdx\n\t setne %%al\n\t or %%rax, %[bad]\n\t"
		"movq %%xmm12, %%rdx\n\t cmp 48(%[s]), %%rdx\n\t setne %%al\n\t or %%rax, %[bad]\n\t"
		"movq %%xmm13, %%rdx\n\t cmp 56(%[s]), %%rdx\n\t setne %%al\n\t or %%rax, %[bad]\n\t"
		"movq %%xmm14, %%rdx\n\t cmp 64(%[s]), %%rdx\n\t setne %%al\n\t or %%rax, %[bad]\n\t"
		"movq %%xmm15, %%rdx\n\t cmp 72(%[s]), %%rdx\n\t setne %%al\n\t or %%rax, %[bad]\n\t"
		"dec %[n]\n\t"
		"jnz 1b\n\t"
		: [bad] "=&r"(bad), [n] "+r"(n)
		: [s] "r"(sentinel)
		: "rax", "rbx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r12", "r13", "r14", "r15",
		  "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14",
		  "xmm15", "cc", "memory");
	return bad;
}
#endif

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "spin";
	int n = argc > 3 ? atoi(argv[3]) : 2;
	char line[16];

	if (argc > 2)
		secs = atof(argv[2]);
	if (!strcmp(mode, "signals"))
		return signals();
	fprintf(stderr, "ready %d\n", (int)getpid());
	if (!strcmp(mode, "spin")) {
		burn_for(secs);
		printf("cpu=%.3f\n", cpu_secs());
		fflush(stdout);
	} else if (!strcmp(mode, "hot")) {
		work(0);
	} else if (!strcmp(mode, "work")) {
		work(argc > 3 ? atol(argv[3]) : 1000);
		printf("cpu=%.4f\n", cpu_secs());
	} else if (!strcmp(mode, "corrupt")) {
		corrupt();
		printf("survived\n");
	} else if (!strcmp(mode, "dlopen")) {
		if (argc < 4 || !fgets(line, sizeof(line), stdin))
			return 1;
		void *lib = dlopen(argv[3], RTLD_NOW);
		void (*spin)(double) = lib ? (void (*)(double))dlsym(lib, "lib_spin") : NULL;
		if (!spin) {
			fprintf(stderr, "profprog: %s\n", dlerror());
			return 1;
		}
		spin(secs);
	} else if (!strcmp(mode, "threads")) {
		pthread_t t[64];
		if (n < 1 || n > 64)
			n = 2;
		if (!fgets(line, sizeof(line), stdin))
			return 1;
		for (int i = 0; i < n; i++)
			pthread_create(&t[i], NULL, burner, NULL);
		for (int i = 0; i < n; i++)
			pthread_join(t[i], NULL);
	} else if (!strcmp(mode, "sleep")) {
		struct timespec d = { (time_t)secs, (long)((secs - (double)(time_t)secs) * 1e9) };
		double t0 = now();
		int r = nanosleep(&d, NULL), e = r ? errno : 0;
		printf("slept=%.1f errno=%d\n", now() - t0, e);
	} else if (!strcmp(mode, "errno")) {
		double end = now() + secs;
		long changed = 0;
		errno = 4321;
		while (now() < end) {
			burn(1);
			if (errno != 4321) {
				changed++;
				errno = 4321;
			}
		}
		printf("errno changed %ld times\n", changed);
#if defined(__x86_64__)
	} else if (!strcmp(mode, "regs")) {
		double end = now() + secs;
		long bad = 0, turns = 0;
		while (now() < end) {
			bad += regs_turns(2000000) != 0;
			turns++;
		}
		printf("regs clobbered in %ld of %ld runs\n", bad, turns);
#endif
	} else {
		fprintf(stderr, "profprog: unknown mode %s\n", mode);
		return 2;
	}
	return 0;
}
