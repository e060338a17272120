/* SPDX-License-Identifier: MIT */
/*
 * Fault-safe reads of the process's own memory, for the bytecode's loads and
 * the runtime's string copies: process_vm_readv on ourselves, as a raw
 * system call that leaves errno alone.
 *
 * Why process_vm_readv: the kernel does the copy, so an address that is
 * NULL, unmapped, PROT_NONE or a guard page makes the call fail with EFAULT
 * instead of raising SIGSEGV in the application. No signal handler is
 * installed, so the application's own handlers and signal masks are never
 * disturbed, and the call is async-signal-safe. Reading oneself needs no
 * privilege (the ptrace access check always allows a process itself); a
 * seccomp filter that denies the call only makes every load fail.
 *
 * The pid: the call takes one, and this file keeps ours in self_pid, which
 * the runtime sets with udt__safe_set_pid() when a session starts in this
 * process and again when it finds it is a fork child (session.c detects
 * that), so that a load costs one system call, not two. It is never written
 * on the load path: a vfork() child shares this memory, and must not leave
 * its own pid behind for the parent. While it is unset, each load asks the
 * kernel for the pid. Nothing runs at load time: an untraced process pays
 * nothing for this file.
 */
#include "runtime/safe.h"

#include <errno.h>
#include <sys/syscall.h>
#include <sys/uio.h>
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

int udt__safe_copy(void *dst, uint64_t src, size_t len)
{
	struct iovec local, remote;
	long ret;
	int pid;

	if (!len)
		return 0;
	/* an address this process cannot even name, or a range that wraps */
	if (src > UINTPTR_MAX || len - 1 > UINTPTR_MAX - src)
		return -EFAULT;
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
