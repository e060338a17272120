/* SPDX-License-Identifier: MIT */
/*
 * Reading the process's own memory without ever faulting: the loads of the
 * bytecode (docs/bytecode.md §5) and the runtime's string copies go through
 * here. Private to libudtrace (and linked into the consumer, which runs BEGIN
 * and END clauses itself).
 */
#ifndef UDT_RUNTIME_SAFE_H
#define UDT_RUNTIME_SAFE_H

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
 * One process_vm_readv system call on the process itself, issued raw, so
 * errno is never touched. A copy that can only be done in part fails as a
 * whole (dst may then hold part of the bytes).
 *
 * Return: 0, or -EFAULT if any byte of [src, src + len) cannot be read
 * (including when the kernel refuses the system call itself, as a seccomp
 * filter may).
 * Async-signal-safe.
 */
int udt__safe_copy(void *dst, uint64_t src, size_t len);

/* The process ID from the kernel (a raw system call: errno untouched). */
int udt__safe_getpid(void);

/* Tell udt__safe_copy() our pid (at a session's start, and in a fork child). */
void udt__safe_set_pid(int pid);

#endif /* UDT_RUNTIME_SAFE_H */
