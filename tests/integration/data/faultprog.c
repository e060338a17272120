/*
 * A traced program with fault handling of its own, for tests/integration/
 * faults.sh: it fires rt:::bad (int *p) with pointers a D script reads, in
 * situations where a fault would be fatal or would reach the wrong handler.
 * Usage: faultprog [deny]
 *   1. it installs a SIGSEGV handler that opens a guard page on first touch
 *      (as a garbage collector or a JIT does), before anything is traced;
 *   2. fires rt:::bad with NULL, the guard page and a good pointer (42);
 *   3. touches the guard page itself: its handler must run, once;
 *   4. in a thread that blocked every signal, fires rt:::bad with NULL and a
 *      good pointer (43);
 *   5. fires rt:::bad with a pointer past the end of a truncated file
 *      mapping (SIGBUS), then a good one (44);
 * and prints the addresses ("guard=0x...", "bus=0x...", "good43=0x..."),
 * "app faults=N" and "done". With "deny" it first forbids itself
 * process_vm_readv (seccomp), so that only direct loads can read: a good
 * pointer in the blocked thread, which must not be loaded directly, then
 * reads as an invalid address.
 */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rt.h"

static volatile sig_atomic_t app_faults;
static char *guard;
static long pg;

static void on_segv(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)uc;
	app_faults++;
	if ((char *)si->si_addr >= guard && (char *)si->si_addr < guard + pg)
		mprotect(guard, (size_t)pg, PROT_READ | PROT_WRITE);
	else
		_exit(3); /* a fault the program did not make: it must never see one */
}

static void deny_process_vm_readv(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_process_vm_readv, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
		printf("seccomp: %s\n", strerror(errno));
		exit(77);
	}
}

static int good43 = 43;

static void *blocked_thread(void *arg)
{
	sigset_t all;

	(void)arg;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	RT_BAD(NULL);
	RT_BAD(&good43);
	return NULL;
}

int main(int argc, char **argv)
{
	static int good = 42, good2 = 44;
	struct sigaction sa = { .sa_sigaction = on_segv, .sa_flags = SA_SIGINFO };
	char path[] = "/tmp/faultprog-XXXXXX";
	pthread_t t;

	pg = sysconf(_SC_PAGESIZE);
	if (argc > 1 && !strcmp(argv[1], "deny"))
		deny_process_vm_readv();
	guard = mmap(NULL, (size_t)pg, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	sigemptyset(&sa.sa_mask);
	if (guard == MAP_FAILED || sigaction(SIGSEGV, &sa, NULL))
		return 1;

	RT_BAD(NULL);
	RT_BAD((int *)(void *)guard);
	RT_BAD(&good);

	((volatile char *)guard)[1] = 1;

	if (pthread_create(&t, NULL, blocked_thread, NULL))
		return 1;
	pthread_join(t, NULL);

	int fd = mkstemp(path);
	if (fd < 0 || unlink(path) || ftruncate(fd, 2 * pg))
		return 1;
	char *m = mmap(NULL, 2 * (size_t)pg, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED || ftruncate(fd, pg))
		return 1;
	RT_BAD((int *)(void *)(m + pg));
	RT_BAD(&good2);

	printf("guard=%p\nbus=%p\ngood43=%p\n", (void *)guard, (void *)(m + pg), (void *)&good43);
	printf("app faults=%d\n", (int)app_faults);
	printf("done\n");
	return 0;
}
