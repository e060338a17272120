/* SPDX-License-Identifier: MIT */
/*
 * Fault-safe reads of the process's own memory, for the bytecode's loads and
 * the runtime's string copies. Two ways, one contract (safe.h):
 *
 * The kernel's copy. process_vm_readv on ourselves, as a raw system call
 * that leaves errno alone: the kernel does the copy, so an address that is
 * NULL, unmapped, PROT_NONE or a guard page makes the call fail with EFAULT.
 * It works anywhere (the consumer's BEGIN and END use it), needs no signal
 * handler, and costs a system call per copy: 1.1 to 1.5 us on the virtual
 * machines of docs/benchmarks.md, where a bare system call takes 0.15.
 *
 * Direct loads (x86-64, in a traced process). The copy is done by the
 * routines of safe_x86_64.S, and a fault there is caught by a SIGSEGV and
 * SIGBUS handler that moves the PC to a fix-up returning -EFAULT, as the
 * kernel's exception tables do for copy_from_user(). The handler is
 * installed by udt__safe_arm() (the runtime calls it at a session's first
 * load, never before a consumer comes) and chains every fault that is not
 * ours to the application's handler as the kernel would have run it; it is
 * not removed when the session ends (nothing of the runtime runs then), and
 * stays transparent. Two things would turn a fault of ours into the death
 * of the process, and each fire checks both, once, before its first direct
 * load (udt__safe_fire_begin() starts a fire):
 *  - SIGSEGV or SIGBUS blocked in the thread (a worker thread that blocked
 *    every signal, a handler whose sa_mask has them): the kernel kills a
 *    thread that faults with the signal blocked. Such a fire reads through
 *    the kernel instead.
 *  - our handler replaced by the application's (sigaction after the
 *    session started): from then on this process reads through the kernel.
 * Both checks are system calls (rt_sigprocmask, rt_sigaction): a fire that
 * loads pays three, whatever its loads, instead of one per load.
 *
 * The pid: process_vm_readv takes one, and this file keeps ours in self_pid,
 * which the runtime sets with udt__safe_set_pid() when a session starts in
 * this process and again when it finds it is a fork child (session.c detects
 * that), so that a load costs one system call, not two. It is never written
 * on the load path: a vfork() child shares this memory, and must not leave
 * its own pid behind for the parent. While it is unset, each load asks the
 * kernel for the pid. Nothing runs at load time: an untraced process pays
 * nothing for this file.
 */
#include "runtime/safe.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <ucontext.h>
#include <unistd.h>

/* Our pid once known, else 0. Written by udt__safe_set_pid() only. */
static int self_pid;

#if defined(__x86_64__) && !defined(__ILP32__)

static long raw_syscall6(long nr, long a1, long a2, long a3, long a4, long a5, long a6)
{
	register long r10 __asm__("r10") = a4;
	register long r8 __asm__("r8") = a5;
	register long r9 __asm__("r9") = a6;
	long ret;

	/* the kernel clobbers rcx (return address) and r11 (flags) */
	__asm__ __volatile__("syscall"
			     : "=a"(ret)
			     : "a"(nr), "D"(a1), "S"(a2), "d"(a3), "r"(r10), "r"(r8), "r"(r9)
			     : "rcx", "r11", "memory");
	return ret;
}

#elif defined(__aarch64__)

static long raw_syscall6(long nr, long a1, long a2, long a3, long a4, long a5, long a6)
{
	register long x8 __asm__("x8") = nr;
	register long x0 __asm__("x0") = a1;
	register long x1 __asm__("x1") = a2;
	register long x2 __asm__("x2") = a3;
	register long x3 __asm__("x3") = a4;
	register long x4 __asm__("x4") = a5;
	register long x5 __asm__("x5") = a6;

	__asm__ __volatile__("svc #0"
			     : "+r"(x0)
			     : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5)
			     : "memory");
	return x0;
}

#else

/* Elsewhere, libc's syscall(), with errno put back as it was. */
static long raw_syscall6(long nr, long a1, long a2, long a3, long a4, long a5, long a6)
{
	int saved_errno = errno;
	long ret = syscall(nr, a1, a2, a3, a4, a5, a6);

	if (ret == -1)
		ret = -errno;
	errno = saved_errno;
	return ret;
}

#endif

static int kernel_pid(void)
{
	return (int)raw_syscall6(SYS_getpid, 0, 0, 0, 0, 0, 0);
}

int udt__safe_getpid(void)
{
	return kernel_pid();
}

void udt__safe_set_pid(int pid)
{
	__atomic_store_n(&self_pid, pid, __ATOMIC_RELAXED);
}

/* The kernel's copy: one process_vm_readv, all or nothing. */
static int kernel_copy(void *dst, uint64_t src, size_t len)
{
	struct iovec local, remote;
	long ret;
	int pid;

	pid = __atomic_load_n(&self_pid, __ATOMIC_RELAXED);
	if (!pid)
		pid = kernel_pid();
	local.iov_base = dst;
	local.iov_len = len;
	remote.iov_base = (void *)(uintptr_t)src;
	remote.iov_len = len;
	ret = raw_syscall6(SYS_process_vm_readv, pid, (long)&local, 1, (long)&remote, 1, 0);
	/* a short count means a hole part-way: the copy is all or nothing */
	return ret == (long)len ? 0 : -EFAULT;
}

/* -- Direct loads ------------------------------------------------------------------ */

/* How this thread's current fire reads (udt__safe_fire_begin() resets it). */
enum {
	MODE_KERNEL = 0,          /* outside a fire (the consumer), or decided so */
	MODE_UNKNOWN = 1,         /* a fire that has not loaded yet: check at its first load */
	MODE_DIRECT = 2,
};

static __thread uint8_t fire_mode __attribute__((tls_model("initial-exec")));

#if defined(__x86_64__) && !defined(__ILP32__)

/* safe_x86_64.S */
extern const char udt__safe_text_begin[], udt__safe_text_end[], udt__safe_fixup[];
int udt__safe_direct_copy(void *dst, const void *src, size_t len);
long udt__safe_direct_str(char *dst, const void *src, size_t max);

/* The kernel's struct sigaction for rt_sigaction on x86-64 (8-byte mask). */
struct ksigaction {
	void *handler;
	unsigned long flags;
	void *restorer;
	uint64_t mask;
};

#define SIGBIT(sig) (1ull << ((sig) - 1))

/* udt__safe_arm()'s progress, once per process (a fork child inherits it). */
enum { ARM_NONE, ARM_BUSY, ARM_READY, ARM_LOST };
static int arm_state;
/* The handlers we replaced, which every fault not ours goes to. */
static struct sigaction prev_segv, prev_bus;

static void on_fault(int sig, siginfo_t *si, void *ucv);

static bool handler_is_ours(int sig)
{
	struct ksigaction k;

	return raw_syscall6(SYS_rt_sigaction, sig, 0, (long)&k, 8, 0, 0) == 0 &&
	       k.handler == (void *)on_fault;
}

/* Can this thread take a fault of ours now? (See the top of the file.) */
static bool direct_check(void)
{
	uint64_t blocked;

	if (__atomic_load_n(&arm_state, __ATOMIC_ACQUIRE) == ARM_NONE)
		udt__safe_arm();
	if (__atomic_load_n(&arm_state, __ATOMIC_ACQUIRE) != ARM_READY)
		return false;
	if (!handler_is_ours(SIGSEGV) || !handler_is_ours(SIGBUS)) {
		/* the application has its own handler now: leave it alone for good */
		__atomic_store_n(&arm_state, ARM_LOST, __ATOMIC_RELAXED);
		return false;
	}
	if (raw_syscall6(SYS_rt_sigprocmask, SIG_BLOCK, 0, (long)&blocked, 8, 0, 0))
		return false;
	return !(blocked & (SIGBIT(SIGSEGV) | SIGBIT(SIGBUS)));
}

static bool direct_ok(void)
{
	uint8_t m = fire_mode;

	if (m == MODE_UNKNOWN)
		fire_mode = m = direct_check() ? MODE_DIRECT : MODE_KERNEL;
	return m == MODE_DIRECT;
}

/*
 * A fault that is not ours: what the kernel would have done without our
 * handler. The application's handler runs with its own mask added; a
 * default action is taken by restoring it and faulting again on return (or,
 * for a signal another process sent, by sending it again).
 */
/*
 * Set while this thread runs the handler chain() called: if that handler
 * calls ours back (below), nobody handles the fault. Reset by every fault the
 * kernel delivers (on_fault() returns to the signal restorer then), since a
 * handler may leave by siglongjmp() and never come back to clear it.
 */
static __thread uint8_t chaining __attribute__((tls_model("initial-exec")));
/* The signal restorer our handler returns to when the kernel calls it. */
static void *restorer;

static void chain(int sig, siginfo_t *si, void *uc)
{
	struct sigaction *p = sig == SIGSEGV ? &prev_segv : &prev_bus;
	bool loop = chaining;

	if (p->sa_handler == SIG_IGN && si->si_code <= 0 && !loop)
		return; /* sent, and ignored: a fault cannot be ignored */
	/*
	 * Back here from the handler we chained to: it chains to ours in turn (an
	 * application that re-installed its handler, keeping ours as the one before
	 * it). Nobody handles this fault: the default action, as without us.
	 */
	if (loop || p->sa_handler == SIG_DFL || p->sa_handler == SIG_IGN) {
		struct sigaction dfl = { .sa_handler = SIG_DFL };

		__atomic_store_n(&arm_state, ARM_LOST, __ATOMIC_RELAXED);
		sigaction(sig, &dfl, NULL);
		if (si->si_code <= 0)
			raw_syscall6(SYS_tgkill, kernel_pid(), raw_syscall6(SYS_gettid, 0, 0, 0, 0, 0, 0),
				     sig, 0, 0, 0);
		return; /* the fault happens again, and now kills as it should */
	}
	sigprocmask(SIG_BLOCK, &p->sa_mask, NULL); /* sigreturn restores the mask */
	chaining = 1;
	if (p->sa_flags & SA_SIGINFO)
		p->sa_sigaction(sig, si, uc);
	else
		p->sa_handler(sig);
	chaining = 0;
	if (p->sa_flags & SA_RESETHAND)
		p->sa_handler = SIG_DFL;
}

static void on_fault(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	uintptr_t pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];

	if (__builtin_return_address(0) == restorer)
		chaining = 0; /* delivered by the kernel, not called back by a handler */
	/* si_code > 0: raised by the kernel for this instruction, not sent by kill() */
	if (si->si_code > 0 && pc >= (uintptr_t)udt__safe_text_begin &&
	    pc < (uintptr_t)udt__safe_text_end) {
		uc->uc_mcontext.gregs[REG_RIP] = (greg_t)(uintptr_t)udt__safe_fixup;
		return;
	}
	chain(sig, si, ucv);
}

int udt__safe_arm(void)
{
	struct sigaction sa = { .sa_sigaction = on_fault,
				.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART };
	int st = ARM_NONE;

	if (!__atomic_compare_exchange_n(&arm_state, &st, ARM_BUSY, false, __ATOMIC_ACQUIRE,
					 __ATOMIC_RELAXED))
		return st == ARM_READY ? 0 : -EBUSY;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSEGV, &sa, &prev_segv)) {
		__atomic_store_n(&arm_state, ARM_LOST, __ATOMIC_RELEASE);
		return -EPERM;
	}
	if (sigaction(SIGBUS, &sa, &prev_bus)) {
		sigaction(SIGSEGV, &prev_segv, NULL);
		__atomic_store_n(&arm_state, ARM_LOST, __ATOMIC_RELEASE);
		return -EPERM;
	}
	struct ksigaction k;
	if (raw_syscall6(SYS_rt_sigaction, SIGSEGV, 0, (long)&k, 8, 0, 0) == 0)
		restorer = k.restorer;
	__atomic_store_n(&arm_state, ARM_READY, __ATOMIC_RELEASE);
	return 0;
}

#else /* no direct loads: every copy is the kernel's */

static bool direct_ok(void)
{
	return false;
}

static int udt__safe_direct_copy(void *dst, const void *src, size_t len)
{
	(void)dst, (void)src, (void)len;
	return -EFAULT;
}

static long udt__safe_direct_str(char *dst, const void *src, size_t max)
{
	(void)dst, (void)src, (void)max;
	return -EFAULT;
}

int udt__safe_arm(void)
{
	return -ENOTSUP;
}

#endif

void udt__safe_fire_begin(void)
{
	fire_mode = MODE_UNKNOWN;
}

void udt__safe_fire_end(void)
{
	fire_mode = MODE_KERNEL;
}

/* An address this process cannot even name, or a range that wraps. */
static bool bad_range(uint64_t src, size_t len)
{
	return src > UINTPTR_MAX || len - 1 > UINTPTR_MAX - src;
}

int udt__safe_write(uint64_t dst, uint64_t src, size_t len)
{
	struct iovec local, remote;
	long ret;
	int pid;

	if (!len)
		return 0;
	if (bad_range(dst, len) || bad_range(src, len))
		return -EFAULT;
	pid = __atomic_load_n(&self_pid, __ATOMIC_RELAXED);
	if (!pid)
		pid = kernel_pid();
	local.iov_base = (void *)(uintptr_t)src;
	local.iov_len = len;
	remote.iov_base = (void *)(uintptr_t)dst;
	remote.iov_len = len;
	/* the kernel reads src and writes dst as user memory: a hole at either end, or a
	   destination that is not writable (no FOLL_FORCE: read-only stays read-only), is
	   EFAULT (or a short count), never a fault of ours */
	ret = raw_syscall6(SYS_process_vm_writev, pid, (long)&local, 1, (long)&remote, 1, 0);
	return ret == (long)len ? 0 : -EFAULT;
}

int udt__safe_copy(void *dst, uint64_t src, size_t len)
{
	if (!len)
		return 0;
	if (bad_range(src, len))
		return -EFAULT;
	if (direct_ok())
		return udt__safe_direct_copy(dst, (const void *)(uintptr_t)src, len);
	return kernel_copy(dst, src, len);
}

int udt__safe_str(void *dst, uint64_t src, size_t sz)
{
	uint8_t *d = dst;
	size_t n = 0;

	memset(d, 0, sz);
	if (!sz)
		return 0;
	if (direct_ok())
		return udt__safe_direct_str(dst, (const void *)(uintptr_t)src, sz) < 0 ? -EFAULT : 0;
	while (n + 1 < sz) {
		/* never cross a page in one copy: the string may end before a hole */
		size_t chunk = 4096 - ((src + n) & 4095);
		if (chunk > sz - 1 - n)
			chunk = sz - 1 - n;
		if (bad_range(src + n, chunk) || kernel_copy(d + n, src + n, chunk))
			return -EFAULT;
		for (size_t k = 0; k < chunk; k++)
			if (!d[n + k])
				return 0;
		n += chunk;
	}
	d[sz - 1] = 0;
	return 0;
}
