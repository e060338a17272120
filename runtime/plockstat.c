/* SPDX-License-Identifier: MIT */
/*
 * The plockstat provider in the process (docs/plockstat.md). glibc's lock
 * functions carry no probes of their own, so the consumer places pid
 * provider sites in them (probes/libc.c), each with its part in a lock
 * operation (UDT_PART()): the lock function's entry, a call that waits
 * (a futex wait), a pause of a spin loop, a way out. This file follows each
 * thread's operation through them, and fires what what it saw means, as
 * illumos's libc fires its plockstat probes:
 *
 *	entry          the operation begins: its lock (%rdi), its function
 *	pause          mutex-spin, the first time; its spins counted
 *	a wait's call  mutex-spun (unsuccessful), if it spun; mutex-block or
 *	               rw-block, the first time (a contended lock: the fast
 *	               path failed, the thread is about to sleep)
 *	a way out      mutex-spun, mutex-blocked or rw-blocked (successful if
 *	               %eax is 0) if they are owed; then mutex-acquire or
 *	               rw-acquire (%eax 0), else mutex-error or rw-error (a
 *	               trylock's EBUSY is no error: it fires neither)
 *	unlock's entry mutex-release, rw-release
 *
 * An operation that began before the session's sites were in place fires
 * nothing at its way out: a wait or a way out is the operation's only where
 * the stack is its entry's (a way out's %rsp is the entry's, a wait's not
 * above it), so that one left over from a session that ended mid-operation,
 * or interrupted by a signal handler's, is not taken for another's.
 * EOWNERDEAD (a robust mutex whose owner died) is an acquisition, as illumos
 * counts it. The probes' keys are UDT_LOCK_KEY(probe, fn), fn the lock
 * function the operation began in; a key no session enabled finds no ECB, at
 * the cost of a hash lookup.
 */
#include "runtime/internal.h"
#include "vm/safe.h"

#include <errno.h>

/* glibc's pthread_mutex_t and pthread_rwlock_t on x86-64 (bits/struct_mutex.h, struct_rwlock.h) */
#define MUTEX_COUNT 4              /* unsigned int __count: a recursive mutex's depth */
#define MUTEX_KIND 16              /* int __kind: its type in the low bits */
#define MUTEX_KIND_MASK 3
#define MUTEX_RECURSIVE 1          /* PTHREAD_MUTEX_RECURSIVE_NP */
#define RW_CUR_WRITER 24           /* int __cur_writer: the writer's tid */

/* The application's word at addr, fault-safe (0 when it cannot be read). */
static uint32_t load32(uint64_t addr)
{
	uint32_t v;

	return udt__fire_read(&v, addr, sizeof(v)) ? 0 : v;
}

/* Is mutex m recursive, and held more than depth times? */
static bool recursive(uint64_t m, uint32_t depth)
{
	return (load32(m + MUTEX_KIND) & MUTEX_KIND_MASK) == MUTEX_RECURSIVE &&
	       load32(m + MUTEX_COUNT) > depth;
}

static void fire(uint32_t probe, uint64_t fn, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t pc)
{
	uint64_t a[3] = { a0, a1, a2 };

	udt__fire_at(UDT_LOCK_KEY(probe, fn), 3, a, pc);
}

/* mutex-spun, owed once by an operation that spun (ok: it ends with the lock). */
static void spun(struct udt_lockop *op, bool ok, uint64_t pc)
{
	if (op->spun != 1)
		return;
	op->spun = 2;
	fire(UDT_LK_MUTEX_SPUN, op->fn, op->lock, ok, op->spins, pc);
}

void udt__lock_fire(uint64_t site, const uint64_t *gpr, uint64_t pc)
{
	struct udt_lockop *op = &udt__tls.lockop;
	uint32_t role = UDT_PART_ROLE(site);
	uint64_t fn = UDT_PART_FN(site), rdi = gpr[UDT_NREG_RDI];

	switch (role) {
	case UDT_LR_MUTEX_LOCK:
	case UDT_LR_MUTEX_TRY:
	case UDT_LR_RD_LOCK:
	case UDT_LR_RD_TRY:
	case UDT_LR_WR_LOCK:
	case UDT_LR_WR_TRY:
		*op = (struct udt_lockop){ .lock = rdi, .fn = fn, .sp = gpr[UDT_NREG_RSP],
					   .role = (uint8_t)role };
		break;
	case UDT_LR_MUTEX_UNLOCK:
		fire(UDT_LK_MUTEX_RELEASE, fn, rdi, recursive(rdi, 1), 0, pc);
		break;
	case UDT_LR_RW_UNLOCK: {
		int32_t writer = (int32_t)load32(rdi + RW_CUR_WRITER);
		fire(UDT_LK_RW_RELEASE, fn, rdi, writer && writer == udt__gettid(), 0, pc);
		break;
	}
	}
	uint64_t sp = gpr[UDT_NREG_RSP];
	if (role <= UDT_LR_WR_TRY || role >= UDT_LR_MUTEX_UNLOCK || !op->fn ||
	    (role == UDT_LR_DONE ? sp != op->sp : sp > op->sp))
		return; /* (or none under way here: it began before the sites were there) */
	bool rw = op->role >= UDT_LR_RD_LOCK, wr = op->role >= UDT_LR_WR_LOCK;
	bool try = op->role == UDT_LR_MUTEX_TRY || op->role == UDT_LR_RD_TRY ||
		   op->role == UDT_LR_WR_TRY;

	if (role == UDT_LR_SPIN && !rw) {
		if (!op->spun) {
			op->spun = 1;
			fire(UDT_LK_MUTEX_SPIN, op->fn, op->lock, 0, 0, pc);
		}
		op->spins++;
	} else if (role == UDT_LR_WAIT) {
		spun(op, false, pc);
		if (!op->blocked) {
			op->blocked = true;
			fire(rw ? UDT_LK_RW_BLOCK : UDT_LK_MUTEX_BLOCK, op->fn, op->lock, wr, 0, pc);
		}
	} else if (role == UDT_LR_DONE) {
		int rc = (int)gpr[UDT_NREG_RAX];
		struct udt_lockop o = *op;

		if (rc == EOWNERDEAD)
			rc = 0; /* (the lock is the caller's: its state to be made consistent) */

		op->fn = 0;
		spun(&o, rc == 0, pc);
		if (o.blocked && rw)
			fire(UDT_LK_RW_BLOCKED, o.fn, o.lock, wr, rc == 0, pc);
		else if (o.blocked)
			fire(UDT_LK_MUTEX_BLOCKED, o.fn, o.lock, rc == 0, 0, pc);
		if (!rc && rw)
			fire(UDT_LK_RW_ACQUIRE, o.fn, o.lock, wr, 0, pc);
		else if (!rc)
			fire(UDT_LK_MUTEX_ACQUIRE, o.fn, o.lock, recursive(o.lock, 1), o.spins, pc);
		else if (!(try && rc == EBUSY))
			fire(rw ? UDT_LK_RW_ERROR : UDT_LK_MUTEX_ERROR, o.fn, o.lock, rw ? wr : (uint64_t)rc,
			     rw ? (uint64_t)rc : 0, pc);
	}
}
