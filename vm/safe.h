/* SPDX-License-Identifier: MIT */
/*
 * Reading the process's own memory without ever faulting: the loads of the
 * bytecode (docs/bytecode.md §5) and the runtime's string copies go through
 * here. Private to libudtrace (and linked into the consumer, which runs BEGIN
 * and END clauses itself).
 */
#ifndef UDT_VM_SAFE_H
#define UDT_VM_SAFE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * udt__safe_copy() - copy len bytes at address src of this process into dst.
 * @dst: where to copy; must be writable memory of len bytes (it is written by
 *       the kernel: a bad dst also fails with -EFAULT rather than faulting).
 * @src: an application address, trusted for nothing: NULL, unmapped,
 *       PROT_NONE or wrapping around the end of the address space all fail.
 * @len: bytes to copy; 0 succeeds without a system call.
 *
 * Inside a fire of a traced process (udt__safe_fire_begin()), on x86-64, the
 * copy is a plain load where the kernel has already read its pages for this
 * thread, and the runtime's SIGSEGV/SIGBUS handler recovers the fault of
 * memory unmapped since; elsewhere one process_vm_readv system call on the
 * process itself (see safe.c). Both leave errno alone. A copy that can only
 * be done in part fails as a whole (dst may then hold part of the bytes).
 *
 * Return: 0, or -EFAULT if any byte of [src, src + len) cannot be read
 * (including when the kernel refuses the system call itself, as a seccomp
 * filter may, and a direct load is not possible).
 * Async-signal-safe.
 */
int udt__safe_copy(void *dst, uint64_t src, size_t len);

/*
 * udt__safe_strcpy() - copy the NUL-terminated string at src, at most max - 1
 * bytes of it, and a NUL, into dst (max > 0). Bytes of dst after the NUL are
 * left as they were, and bytes past the string's NUL in src are not read
 * directly (the kernel's copy may read on to the end of the page or of max).
 * Return: the string's length (at most max - 1), or -EFAULT if a byte of
 * the string cannot be read (dst then holds part of it, and *ret_bad the
 * address where the part that could not be read starts: the string's, or
 * the first page boundary past it). Async-signal-safe.
 */
long udt__safe_strcpy(char *dst, uint64_t src, size_t max, uint64_t *ret_bad);

/*
 * udt__safe_write() - copy len bytes at src (this process's memory, or the
 * runtime's own) to address dst of this process, as copyout() does: by the
 * kernel (one process_vm_writev system call on the process itself), so that
 * a src or dst that is NULL, unmapped, PROT_NONE or not writable fails
 * instead of faulting. A copy that fails part-way may have written the
 * bytes before the hole (DTrace's copyout() may too).
 * Return: 0, or -EFAULT. Async-signal-safe.
 */
int udt__safe_write(uint64_t dst, uint64_t src, size_t len);

/* Where a thread's copies are (udt_safe_thread.fire). */
enum {
	UDT_FIRE_OUT = 0,         /* outside a fire (the consumer's BEGIN and END): the kernel's */
	UDT_FIRE_IN = 1,          /* a fire: direct where the pages are known */
	UDT_FIRE_CHECK = 2,       /* a fire where the kernel's copy is refused, not checked yet */
	UDT_FIRE_CHECKED = 3,     /* ... checked: direct loads */
	UDT_FIRE_KERNEL = 4,      /* ... checked: this thread cannot take a fault, the kernel's */
};

/* What a thread knows: where its copies go, its mask (looked at once while it lets faults
   through). safe.c's; here for the inline begin and end of a fire below. */
struct udt_safe_thread {
	uint8_t fire;             /* UDT_FIRE_* */
	uint8_t mask;             /* MASK_* (safe.c) */
	uint8_t mask_seen;        /* this fire has looked at the mask */
	uint8_t learn_ok;         /* this fire asked the kernel before learning pages: 1 ok, 2 not */
	uint8_t chaining;         /* in the handler chain() called (see chain()) */
};

extern __thread struct udt_safe_thread udt__safe_self
	__attribute__((tls_model("initial-exec"), visibility("hidden")));
/* The kernel refused a copy of ours once: a fire checks the direct path first (safe.c). */
extern bool udt__safe_kernel_refused __attribute__((visibility("hidden")));

/*
 * A fire starts and ends: between the two, this thread's copies may be
 * direct (safe.c says where). Outside a fire every copy is the kernel's.
 * Inline: every fire that copies a string or aggregates without the VM pays
 * them (two calls were 1 ns of benchmark 8's count by string). Async-signal-safe.
 */
static inline void udt__safe_fire_begin(void)
{
	udt__safe_self.fire = __atomic_load_n(&udt__safe_kernel_refused, __ATOMIC_RELAXED)
				      ? UDT_FIRE_CHECK
				      : UDT_FIRE_IN;
	udt__safe_self.mask_seen = 0;
	udt__safe_self.learn_ok = 0;
}

static inline void udt__safe_fire_end(void)
{
	udt__safe_self.fire = UDT_FIRE_OUT;
}

/*
 * udt__safe_arm() - install the handler that recovers the faults of direct
 * copies, chaining every other fault to the handler it replaces. Once per
 * process; the runtime calls it when a fire's copy could first be direct,
 * never before a consumer attached. Return: 0, -EBUSY (another thread is at it, or it
 * failed before), -EPERM, or -ENOTSUP where there are no direct copies.
 * Async-signal-safe.
 */
int udt__safe_arm(void);

/*
 * udt__safe_disarm() - put back the handlers udt__safe_arm() replaced, if
 * ours are still in place (an application's own since stays), so that a
 * process no session traces is left as it was; the next direct copy arms
 * again. The caller knows no thread is in a fire (session.c).
 */
void udt__safe_disarm(void);

/* The process ID from the kernel (a raw system call: errno untouched). */
int udt__safe_getpid(void);

/* Tell udt__safe_copy() our pid (at a session's start, and in a fork child). */
void udt__safe_set_pid(int pid);

#endif /* UDT_VM_SAFE_H */
