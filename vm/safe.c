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
 * ours to the application's handler as the kernel would have run it.
 *
 * A fault of ours would kill the process where the thread blocks SIGSEGV
 * or SIGBUS (the kernel forces the default action), and would reach the
 * application where its own handler has replaced ours since (sigaction(),
 * signal(), or the raw system call, from any thread). Asking the kernel
 * before each fire's loads (rt_sigprocmask and two rt_sigaction) cost three
 * system calls a fire. Seeing the application's changes instead cannot be
 * complete: a runtime that dtrace -p loaded with dlopen() interposes on
 * nothing, libc's own calls (siglongjmp(), setcontext(), a handler's
 * sa_mask at its entry) and raw system calls go by any interposer, and a
 * seccomp filter that would see them all outlives the session, needs
 * no_new_privs and follows the process into exec() (docs/runtime.md,
 * "Reading the process's memory", has the decision). So a direct load is
 * made only where no fault is expected at all: every page it touches is one
 * the kernel's copy has read, in a fire that found (asking the kernel, once
 * a fire that learns pages) our handlers in place and the faults
 * deliverable in its thread; the pages are the process's (known_page), the
 * mask each thread's (looked at once, at its first direct load, while it
 * lets faults through). A first load of a page goes through the kernel; a
 * bad address is never read directly, whatever the handlers and masks, and
 * a handler the application put in place of ours is found by the next fire
 * that learns a page. What faults then is only memory unmapped or protected
 * since the kernel read it: the handler recovers it (and the pages are
 * forgotten), unless the application has changed its handler, or the
 * thread its mask, in between.
 *
 * Where the kernel's copy is refused (a seccomp filter without
 * process_vm_readv), pages cannot be learnt: each fire then asks the
 * kernel for the handlers and the mask before its first direct load (the
 * checked path: three system calls a fire).
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
#include "vm/safe.h"

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

/*
 * The kernel's copy: one process_vm_readv, all or nothing. 0, -EFAULT (a
 * bad address, or a hole part-way: a short count), or the error of a copy
 * the kernel refused (EPERM, EACCES, ENOSYS: a seccomp filter).
 */
static long kernel_copy(void *dst, uint64_t src, size_t len)
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
	if (ret == (long)len)
		return 0;
	return ret == -EPERM || ret == -EACCES || ret == -ENOSYS ? ret : -EFAULT;
}

/* -- Direct loads ------------------------------------------------------------------ */

/*
 * What the process knows for its direct loads (see the top of the file):
 * pages the kernel has read, by number (address >> 12), in a two-way cache
 * of SAFE_SETS sets (the set is the number's low bits) that every thread
 * reads and writes: a page readable in one thread is readable in all, so a
 * thread started per request reads the pages the last one learnt. Each way
 * is one word, written whole (a race loses an entry, never makes one up); 0
 * is no page (page 0 is never readable).
 */
#define SAFE_SETS 32
#define SAFE_PAGE 4096u

static uint64_t known_page[SAFE_SETS * 2]; /* [set * 2 + way] */

enum {
	MASK_UNKNOWN = 0,         /* not looked at yet */
	MASK_OK = 1,              /* SIGSEGV and SIGBUS deliverable, at the last look */
	MASK_BLOCKED = 2,         /* one of them blocked: looked at again at each fire */
};

/* What a thread knows (safe.h: the probe path's begin and end of a fire read it inline). */
__thread struct udt_safe_thread udt__safe_self __attribute__((tls_model("initial-exec")));

/* Is page p among those the kernel read? (Never page 0: 0 is an empty way.) */
static inline bool page_known(uint64_t p)
{
	const uint64_t *set = &known_page[(p % SAFE_SETS) * 2];

	return p && (__atomic_load_n(&set[0], __ATOMIC_RELAXED) == p ||
		     __atomic_load_n(&set[1], __ATOMIC_RELAXED) == p);
}

/* Remember pages [first, last] (the newest first in its set). */
static void pages_learn(uint64_t first, uint64_t last)
{
	if (last - first >= SAFE_SETS * 2)
		last = first + 1; /* (a long copy: its first pages are as good as any) */
	for (uint64_t p = first; p && p <= last; p++) {
		uint64_t *set = &known_page[(p % SAFE_SETS) * 2];
		uint64_t w0 = __atomic_load_n(&set[0], __ATOMIC_RELAXED);
		if (w0 == p)
			continue;
		__atomic_store_n(&set[1], w0, __ATOMIC_RELAXED);
		__atomic_store_n(&set[0], p, __ATOMIC_RELAXED);
	}
}

/* A page the kernel read has gone since: forget them all (async-signal-safe). */
static void pages_forget(void)
{
	for (size_t i = 0; i < SAFE_SETS * 2; i++)
		__atomic_store_n(&known_page[i], 0, __ATOMIC_RELAXED);
}

#if defined(__x86_64__) && !defined(__ILP32__)

/* safe_x86_64.S */
extern const char udt__safe_text_begin[], udt__safe_text_end[], udt__safe_fixup[];
int udt__safe_direct_copy(void *dst, const void *src, size_t len);
long udt__safe_direct_strn(char *dst, const void *src, size_t n);

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

/* Does this thread's signal mask let a fault of ours reach the handler? (A system call.) */
static bool mask_allows(void)
{
	uint64_t blocked;

	if (raw_syscall6(SYS_rt_sigprocmask, SIG_BLOCK, 0, (long)&blocked, 8, 0, 0))
		return false;
	return !(blocked & (SIGBIT(SIGSEGV) | SIGBIT(SIGBUS)));
}

/* Is the handler in place, or can it be put there now? */
static bool armed(void)
{
	if (__atomic_load_n(&arm_state, __ATOMIC_ACQUIRE) == ARM_NONE)
		udt__safe_arm();
	return __atomic_load_n(&arm_state, __ATOMIC_ACQUIRE) == ARM_READY;
}

/*
 * Are our handlers in place (put there now if not yet)? Asked of the kernel
 * (two system calls): a handler the application put in place of ours since
 * leaves the process without direct loads for good.
 */
static bool handlers_ours(void)
{
	if (!armed())
		return false;
	if (!handler_is_ours(SIGSEGV) || !handler_is_ours(SIGBUS)) {
		__atomic_store_n(&arm_state, ARM_LOST, __ATOMIC_RELAXED);
		return false;
	}
	return true;
}

/*
 * Could this thread take a fault of ours now? Three system calls (one where
 * the thread blocks them), before each fire's first direct load where the
 * kernel's copy is refused (the checked path).
 */
static bool direct_check(void)
{
	return mask_allows() && handlers_ours();
}

/*
 * A fault that is not ours: what the kernel would have done without our
 * handler. The application's handler runs with its own mask added; a
 * default action is taken by restoring it and faulting again on return (or,
 * for a signal another process sent, by sending it again).
 *
 * chaining is set while this thread runs the handler chain() called: if that
 * handler calls ours back (below), nobody handles the fault. Reset by every
 * fault the kernel delivers (on_fault() returns to the signal restorer then),
 * since a handler may leave by siglongjmp() and never come back to clear it.
 */
/* The signal restorer our handler returns to when the kernel calls it. */
static void *restorer;

static void chain(int sig, siginfo_t *si, void *uc)
{
	struct sigaction *p = sig == SIGSEGV ? &prev_segv : &prev_bus;
	bool loop = udt__safe_self.chaining;

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
	udt__safe_self.chaining = 1;
	if (p->sa_flags & SA_SIGINFO)
		p->sa_sigaction(sig, si, uc);
	else
		p->sa_handler(sig);
	udt__safe_self.chaining = 0;
	if (p->sa_flags & SA_RESETHAND)
		p->sa_handler = SIG_DFL;
}

static void on_fault(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	uintptr_t pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];

	if (__builtin_return_address(0) == restorer)
		udt__safe_self.chaining = 0; /* delivered by the kernel, not called back by a handler */
	/* si_code > 0: raised by the kernel for this instruction, not sent by kill() */
	if (si->si_code > 0 && pc >= (uintptr_t)udt__safe_text_begin &&
	    pc < (uintptr_t)udt__safe_text_end) {
		/* a page the kernel read is gone since (unmapped, protected): ask it again */
		pages_forget();
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

void udt__safe_disarm(void)
{
	int st = ARM_READY;

	if (!__atomic_compare_exchange_n(&arm_state, &st, ARM_BUSY, false, __ATOMIC_ACQUIRE,
					 __ATOMIC_RELAXED))
		return;
	if (handler_is_ours(SIGBUS))
		sigaction(SIGBUS, &prev_bus, NULL);
	if (handler_is_ours(SIGSEGV))
		sigaction(SIGSEGV, &prev_segv, NULL);
	__atomic_store_n(&arm_state, ARM_NONE, __ATOMIC_RELEASE);
}

#define HAVE_DIRECT 1

#else /* no direct loads: every copy is the kernel's */

#define HAVE_DIRECT 0

static bool direct_check(void)
{
	return false;
}

static bool mask_allows(void)
{
	return false;
}

static bool handlers_ours(void)
{
	return false;
}


static int udt__safe_direct_copy(void *dst, const void *src, size_t len)
{
	(void)dst, (void)src, (void)len;
	return -EFAULT;
}

static long udt__safe_direct_strn(char *dst, const void *src, size_t n)
{
	(void)dst, (void)src, (void)n;
	return -EFAULT;
}

int udt__safe_arm(void)
{
	return -ENOTSUP;
}

void udt__safe_disarm(void)
{
}

#endif

/* The kernel refused its copy (EPERM, ENOSYS: a seccomp filter), once: checked fires since. */
bool udt__safe_kernel_refused;

/*
 * May this thread load [src, src + len) directly now? Only in a fire, with
 * the handler in place, and every page of the range one the kernel read for
 * this thread when the handlers and its mask let a fault of ours be
 * recovered (never a bad address, then: a fault can only come from memory
 * unmapped since). Where the kernel's copy is refused, the checked path
 * decides instead.
 */
static inline bool direct_ok(struct udt_safe_thread *t, uint64_t src, size_t len)
{
	if (!HAVE_DIRECT || t->fire == UDT_FIRE_OUT)
		return false;
	if (t->fire == UDT_FIRE_IN) {
		uint64_t p0 = src / SAFE_PAGE, p1 = (src + len - 1) / SAFE_PAGE;
		if (__atomic_load_n(&arm_state, __ATOMIC_RELAXED) != ARM_READY ||
		    !page_known(p0) || (p1 != p0 && (p1 != p0 + 1 || !page_known(p1))))
			return false;
		if (t->mask != MASK_OK && !t->mask_seen) {
			t->mask_seen = 1;
			t->mask = mask_allows() ? MASK_OK : MASK_BLOCKED;
		}
		return t->mask == MASK_OK;
	}
	if (t->fire == UDT_FIRE_CHECK)
		t->fire = direct_check() ? UDT_FIRE_CHECKED : UDT_FIRE_KERNEL;
	return t->fire == UDT_FIRE_CHECKED;
}

/*
 * The kernel has read [src, src + len) for this thread's fire: remember its
 * pages, so that the next loads of them are direct, if a fault of ours can
 * be recovered now (asked of the kernel once a fire that learns: a handler
 * the application put in place of ours, or a mask that blocks the faults,
 * is found there).
 */
static void learn(struct udt_safe_thread *t, uint64_t src, size_t len)
{
	if (!HAVE_DIRECT || t->fire != UDT_FIRE_IN)
		return;
	if (!t->learn_ok) {
		t->mask_seen = 1;
		t->mask = mask_allows() ? MASK_OK : MASK_BLOCKED;
		t->learn_ok = t->mask == MASK_OK && handlers_ours() ? 1 : 2;
	}
	if (t->learn_ok == 1)
		pages_learn(src / SAFE_PAGE, (src + len - 1) / SAFE_PAGE);
}

/*
 * The kernel's copy failed: true for a bad address, false when the copy
 * itself was refused (EPERM, ENOSYS...) in a fire that may still load
 * directly: the checked path from now on, this fire's too (the caller
 * tries again).
 */
static bool kernel_failed(struct udt_safe_thread *t, long err)
{
	if (err == -EFAULT || t->fire != UDT_FIRE_IN)
		return true;
	__atomic_store_n(&udt__safe_kernel_refused, true, __ATOMIC_RELAXED);
	t->fire = UDT_FIRE_CHECK;
	return false;
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
	struct udt_safe_thread *t = &udt__safe_self;
	long err;

	if (!len)
		return 0;
	if (bad_range(src, len))
		return -EFAULT;
	if (direct_ok(t, src, len) &&
	    !udt__safe_direct_copy(dst, (const void *)(uintptr_t)src, len))
		return 0;
	/* (a direct load that faulted read memory unmapped since: the kernel says so) */
	if ((err = kernel_copy(dst, src, len)))
		return kernel_failed(t, err) ? -EFAULT : udt__safe_copy(dst, src, len);
	learn(t, src, len);
	return 0;
}

long udt__safe_strcpy(char *dst, uint64_t src, size_t max, uint64_t *ret_bad)
{
	struct udt_safe_thread *t = &udt__safe_self;
	size_t n = 0;

	if (!max)
		return 0;
	while (n + 1 < max) {
		/* a page at a time: the string may end just before a hole */
		size_t chunk = SAFE_PAGE - ((src + n) % SAFE_PAGE);
		long got;

		if (chunk > max - 1 - n)
			chunk = max - 1 - n;
		*ret_bad = src + n;
		if (bad_range(src + n, chunk))
			return -EFAULT;
		if (direct_ok(t, src + n, 1) &&
		    (got = udt__safe_direct_strn(dst + n, (const void *)(uintptr_t)(src + n), chunk)) >= 0) {
			if ((size_t)got < chunk)
				return (long)(n + (size_t)got); /* (its NUL copied) */
		} else {
			long err = kernel_copy(dst + n, src + n, chunk);
			if (err) {
				if (!kernel_failed(t, err))
					continue; /* refused: this chunk again, checked */
				return -EFAULT;
			}
			learn(t, src + n, chunk);
			const char *z = memchr(dst + n, 0, chunk);
			if (z)
				return (long)(z - dst);
		}
		n += chunk;
	}
	dst[n] = 0;
	return (long)n;
}
