/*
 * The traced program of the runtime tests. Usage:
 *   rtprog MODE [N] [THREADS]
 * MODE:
 *   ticks    fire rt:::tick N times in each of THREADS threads (arg0 = thread, arg1 = seq 0..N-1)
 *   bad      fire rt:::bad with a NULL, a wild and a good pointer, then rt:::once
 *   loop     fire rt:::tick (thread 0) every millisecond until stdin is closed; then print
 *            whether the probe is still enabled
 *   fork     fire rt:::once in the parent, fork, fire it N times in the child, wait
 *   signal   fire rt:::sig from a SIGALRM handler while firing rt:::tick in main
 *   idle     sleep until stdin is closed (an untraced process, for the footprint test)
 *   mem      fire rt:::mem with a structure of every integer width and a string, then
 *            rt:::info with it and 42
 *   clock    fire rt:::tick N times, 1 ms apart, and print CLOCK_MONOTONIC (ns)
 *            before the first and after the last ("before B", "after A")
 *   crash    fire rt:::tick N times, then die of SIGSEGV
 *   exec     fire rt:::once, then exec "rtprog ticks N" (the same program, a new image)
 *   handoff  a thread fires rt:::tick N times (arg0 = 1, arg1 = seq) and ends; then the
 *            main thread fires rt:::once(N, "handoff"): work handed from one thread to another
 *   raise    fire rt:::tick N times; SIGUSR1's handler fires rt:::sig(signals so far)
 *   opens    open(2) /proc/self/status, /nonexistent/file and /proc/self/stat in
 *            try_open(): rt:::open-entry(path), rt:::step(1..3), rt:::open-return(fd)
 *            with open's errno (the speculation chapter's example, in a process)
 *   writes   N rounds of write(2)s to /dev/null on fds 20, 21, 29 and 30, each wrapped in
 *            rt:::write-entry(fd, buf, size) and rt:::write-return(bytes), then
 *            rt:::tick(0, round) and a pause of THREADS ms (default none): even rounds
 *            write k * 100 bytes 10 * k times (k = 1..12), odd ones 10 * (11 - k) times
 *            (k = 1..10), on fd 20, 21, 29, 30 in turn from (k % 4) on (the
 *            aggregation chapter's examples, in a process)
 *   hostile  fire rt:::once(kind, pointer) with pointers no script may crash it with, at
 *            fixed addresses so that errors name the same ones every run: 1 NULL,
 *            2 unmapped (0x10002000), 3 PROT_NONE (0x10001000), 4 the last 16 bytes of a
 *            mapping, no NUL before the PROT_NONE page (0x10000ff0), 5 a string of 1 MB
 *            (0x10100000), 6 a good string; then 7 "still running"
 *   narrow   fire rt:::narrow(1, 200, 65000, -56, -536): narrow arguments, both signs
 *   strings  fire rt:::once(len, s) for len 0..N, s a string of len bytes ("abc...z"
 *            over again) starting len / 2 bytes before a page boundary (so that
 *            the longer ones cross it, at every alignment), then rt:::once(-1, NULL)
 *   copyout  fire rt:::once(1, buf) with buf a writable 32-byte "original", then
 *            rt:::once(2, &word) with an int 0, then print "buf=... word=..." (what a
 *            script's copyoutstr() and copyout() wrote)
 *   cmds     run the commands of stdin, one a line, each answered on stdout (flushed):
 *            "wait K [step]": until K sessions have enabled rt:::once (or rt:::step;
 *            its semaphore, 20 s at most): "ok K" or "timeout K"; "fire N T": rt:::tick N times in each of T
 *            threads (arg0 = thread, arg1 = seq 0..N-1): "fired"; "once X":
 *            rt:::once(X, "once"): "onced"; "sems": "tick=A once=B", the semaphores;
 *            "fork N": a child fires rt:::tick N times and says "child tick=A once=B",
 *            the parent waits for it: "forked"
 * It says "ready <pid>" once started and "done" at the end on stderr; what
 * the tests check of it goes to stdout.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rt.h"

static long n = 1000;

static void *ticker(void *arg)
{
	int thread = (int)(long)arg;

	for (long i = 0; i < n; i++)
		RT_TICK(thread, i);
	return NULL;
}

/*
 * An open(2) with probes around it; the fd is closed again. Not static: the
 * probes' function is its name, which gcc would change in a local clone.
 */
int try_open(const char *path);
__attribute__((noinline)) int try_open(const char *path)
{
	RT_OPEN_ENTRY(path);
	RT_STEP(1);
	errno = 0;
	int fd = open(path, O_RDONLY);
	int err = fd < 0 ? errno : 0;
	RT_STEP(2);
	if (fd >= 0)
		close(fd);
	RT_STEP(3);
	errno = err; /* what D's errno shows at the return */
	RT_OPEN_RETURN(fd);
	return fd;
}

/* The commands of mode cmds (see above), until stdin ends. */
static void cmds(void)
{
	char line[128];

	setvbuf(stdout, NULL, _IOLBF, 0);
	while (fgets(line, sizeof(line), stdin)) {
		long a = 0, b = 1;
		char what[8] = "once";
		if (sscanf(line, "wait %ld %7s", &a, what) >= 1) {
			volatile unsigned short *sem = !strcmp(what, "step") ? &rt_step_semaphore
									      : &rt_once_semaphore;
			for (int i = 0; i < 20000 && *sem < a; i++)
				usleep(1000);
			printf("%s %ld\n", *sem >= a ? "ok" : "timeout", a);
		} else if (sscanf(line, "fire %ld %ld", &a, &b) >= 1) {
			pthread_t t[64];
			n = a;
			if (b < 1 || b > 64)
				b = 1;
			for (long i = 0; i < b; i++)
				pthread_create(&t[i], NULL, ticker, (void *)i);
			for (long i = 0; i < b; i++)
				pthread_join(t[i], NULL);
			printf("fired\n");
		} else if (sscanf(line, "once %ld", &a) == 1) {
			RT_ONCE((int)a, "once");
			printf("onced\n");
		} else if (!strncmp(line, "sems", 4)) {
			printf("tick=%d once=%d\n", *(volatile unsigned short *)&rt_tick_semaphore,
			       *(volatile unsigned short *)&rt_once_semaphore);
		} else if (sscanf(line, "fork %ld", &a) == 1) {
			pid_t child = fork();
			if (child == 0) {
				for (long i = 0; i < a; i++)
					RT_TICK(9, i);
				printf("child tick=%d once=%d\n",
				       *(volatile unsigned short *)&rt_tick_semaphore,
				       *(volatile unsigned short *)&rt_once_semaphore);
				_exit(0);
			}
			waitpid(child, NULL, 0);
			printf("forked\n");
		}
	}
}

static volatile sig_atomic_t sigs;

static void on_alarm(int sig)
{
	(void)sig;
	RT_SIG(++sigs);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "ticks";
	int threads = argc > 3 ? atoi(argv[3]) : 1;

	if (argc > 2)
		n = atol(argv[2]);
	fprintf(stderr, "ready %d\n", (int)getpid());

	if (!strcmp(mode, "ticks")) {
		pthread_t t[64];
		if (threads < 1 || threads > 64)
			threads = 1;
		for (int i = 0; i < threads; i++)
			pthread_create(&t[i], NULL, ticker, (void *)(long)i);
		for (int i = 0; i < threads; i++)
			pthread_join(t[i], NULL);
	} else if (!strcmp(mode, "bad")) {
		int good = 42;
		RT_BAD(NULL);
		RT_BAD((int *)(uintptr_t)0x10);
		RT_BAD(&good);
		RT_ONCE(7, "after the bad ones");
	} else if (!strcmp(mode, "loop")) {
		char c;
		fd_set fds;
		for (long i = 0;; i++) {
			struct timeval tv = { 0, 1000 };
			FD_ZERO(&fds);
			FD_SET(0, &fds);
			RT_TICK(0, i);
			if (select(1, &fds, NULL, NULL, &tv) > 0 && read(0, &c, 1) <= 0)
				break;
		}
		printf("enabled=%d\n", RT_TICK_ENABLED() ? 1 : 0);
	} else if (!strcmp(mode, "fork")) {
		RT_ONCE(1, "parent");
		pid_t c = fork();
		if (c == 0) {
			for (long i = 0; i < n; i++)
				RT_ONCE(2, "child");
			printf("child enabled=%d\n", RT_ONCE_ENABLED() ? 1 : 0);
			fflush(stdout);
			_exit(0);
		}
		int st;
		waitpid(c, &st, 0);
		RT_ONCE(3, "parent again");
		printf("child status=%d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	} else if (!strcmp(mode, "signal")) {
		struct itimerval it = { { 0, 200 }, { 0, 200 } };
		signal(SIGALRM, on_alarm);
		setitimer(ITIMER_REAL, &it, NULL);
		for (long i = 0; i < n; i++)
			RT_TICK(0, i);
		it.it_value.tv_usec = 0;
		it.it_interval.tv_usec = 0;
		setitimer(ITIMER_REAL, &it, NULL);
		printf("signals=%d\n", (int)sigs);
	} else if (!strcmp(mode, "mem")) {
		static struct {
			int8_t s8;
			uint8_t u8;
			int16_t s16;
			uint16_t u16;
			int32_t s32;
			uint32_t u32;
			int64_t s64;
			const char *str;
			float f;
			double d;
		} m = { -8, 200, -1600, 60000, -320000, 4000000000u, -6400000000000ll, "a string",
			0.15625f, -1234.5678 };
		RT_MEM(&m);
		RT_INFO(&m, 42);
	} else if (!strcmp(mode, "clock")) {
		struct timespec ts, ms = { 0, 1000000 };
		clock_gettime(CLOCK_MONOTONIC, &ts);
		printf("before %lld\n", (long long)ts.tv_sec * 1000000000 + ts.tv_nsec);
		for (long i = 0; i < n; i++) {
			if (i)
				nanosleep(&ms, NULL);
			RT_TICK(0, i);
		}
		clock_gettime(CLOCK_MONOTONIC, &ts);
		printf("after %lld\n", (long long)ts.tv_sec * 1000000000 + ts.tv_nsec);
	} else if (!strcmp(mode, "crash")) {
		for (long i = 0; i < n; i++)
			RT_TICK(0, i);
		raise(SIGSEGV);
	} else if (!strcmp(mode, "exec")) {
		char num[32];
		RT_ONCE(1, "before exec");
		snprintf(num, sizeof(num), "%ld", n);
		execl("/proc/self/exe", argv[0], "ticks", num, "1", (char *)NULL);
		perror("exec");
		return 1;
	} else if (!strcmp(mode, "handoff")) {
		pthread_t t;
		pthread_create(&t, NULL, ticker, (void *)1L);
		pthread_join(t, NULL);
		RT_ONCE((int)n, "handoff");
	} else if (!strcmp(mode, "raise")) {
		signal(SIGUSR1, on_alarm); /* (the signal mode's handler: one site for rt:::sig) */
		for (long i = 0; i < n; i++)
			RT_TICK(0, i);
	} else if (!strcmp(mode, "opens")) {
		static const char *const paths[] = { "/proc/self/status", "/nonexistent/file",
						     "/proc/self/stat" };
		for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
			(void)try_open(paths[i]);
	} else if (!strcmp(mode, "writes")) {
		static const int fds[] = { 20, 21, 29, 30 };
		static char buf[1200];
		int null = open("/dev/null", O_WRONLY);
		long pause = argc > 3 ? atol(argv[3]) : 0;
		for (int i = 0; i < 4; i++)
			dup2(null, fds[i]);
		close(null);
		for (long r = 0; r < n; r++) {
			for (int k = 1; k <= (r % 2 ? 10 : 12); k++) {
				int times = r % 2 ? 10 * (11 - k) : 10 * k;
				for (int j = 0; j < times; j++) {
					int fd = fds[(k + j) % 4];
					RT_WRITE_ENTRY(fd, buf, (size_t)k * 100);
					long ret = (long)write(fd, buf, (size_t)k * 100);
					RT_WRITE_RETURN(ret);
				}
			}
			RT_TICK(0, r);
			if (pause > 0) {
				struct timespec ts = { pause / 1000, (pause % 1000) * 1000000 };
				nanosleep(&ts, NULL);
			}
		}
	} else if (!strcmp(mode, "copyout")) {
		char buf[32] = "original";
		int word = 0;
		RT_ONCE(1, buf);
		RT_ONCE(2, (const char *)&word);
		printf("buf=%s word=%d\n", buf, word);
	} else if (!strcmp(mode, "hostile")) {
		int fl = MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE;
		char *base = mmap((void *)0x10000000, 3 * 4096, PROT_READ | PROT_WRITE, fl, -1, 0);
		char *huge = mmap((void *)0x10100000, 1 << 20, PROT_READ | PROT_WRITE, fl, -1, 0);
		if (base != (void *)0x10000000 || huge != (void *)0x10100000) {
			fprintf(stderr, "rtprog: cannot map the hostile pages\n");
			return 1;
		}
		memset(base, 'A', 4096);
		mprotect(base + 4096, 4096, PROT_NONE);
		munmap(base + 8192, 4096);
		memset(huge, 'x', (1 << 20) - 1);
		RT_ONCE(1, NULL);
		RT_ONCE(2, base + 8192);
		RT_ONCE(3, base + 4096);
		RT_ONCE(4, base + 4096 - 16);
		RT_ONCE(5, huge);
		RT_ONCE(6, "a good string");
		RT_ONCE(7, "still running");
		printf("alive\n");
	} else if (!strcmp(mode, "strings")) {
		static char pages[3 * 4096] __attribute__((aligned(4096)));
		for (long len = 0; len <= n && len / 2 < 4096 && len - len / 2 < 2 * 4096; len++) {
			char *s = pages + 4096 - len / 2;
			for (long i = 0; i < len; i++)
				s[i] = (char)('a' + i % 26);
			s[len] = '\0';
			RT_ONCE((int)len, s);
		}
		RT_ONCE(-1, NULL);
	} else if (!strcmp(mode, "narrow")) {
		RT_NARROW(1, 200, 65000, -56, -536);
	} else if (!strcmp(mode, "cmds")) {
		cmds();
	} else if (!strcmp(mode, "idle")) {
		char c;
		while (read(0, &c, 1) > 0)
			;
	}
	fprintf(stderr, "done\n");
	return 0;
}
