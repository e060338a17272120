/* SPDX-License-Identifier: MIT */
/*
 * Speculative buffers: speculation(), speculate(), commit() and discard()
 * (the DTrace Guide's "Speculative Tracing"), process-wide.
 *
 * DTrace keeps a buffer per speculation per CPU, and a commit copies the
 * committing CPU's at once and the others' later, from a cleaner that runs on
 * every CPU. A process has no such cleaner, and a speculation started on one
 * thread is often committed from another (a request handed between
 * threads). So here a speculation is one buffer in the session's shared
 * memory, written by any thread (struct udt_spec, abi.h):
 *
 *  - speculation() takes an INACTIVE speculation with a compare-and-swap to
 *    ACTIVE and returns its index + 1; none free: 0, and a failure counted
 *    as "busy" if one is being committed or discarded, else "unavailable".
 *  - speculate(id) announces the thread in writers (an atomic add), checks
 *    that the speculation is ACTIVE, reserves room with a compare-and-swap on
 *    off, writes its record there with size 0 and publishes it by storing the
 *    size last, then leaves writers. A record that does not fit is a
 *    speculative drop.
 *  - commit(id) and discard(id) move it from ACTIVE to COMMITTING or
 *    DISCARDING (a compare-and-swap: one of them wins), then finish it: if no
 *    thread is in writers, a commit hands its records (off bytes, every one
 *    complete) to a sink (the committing thread's principal buffer, or
 *    dtrace's output for BEGIN and END), and the buffer is zeroed and made
 *    INACTIVE again. If a thread is still writing, it stays COMMITTING or
 *    DISCARDING (busy) and the consumer finishes it (udt__spec_finish()).
 *
 * Why no record is lost or torn: writers' increment and load of state and
 * the commit's compare-and-swap of state and load of writers are all
 * sequentially consistent, so either the committer sees the writer (and the
 * commit waits: deferred) or the writer sees COMMITTING (and writes nothing).
 * A finisher claims the speculation (COMMITTING or DISCARDING to CLEANING)
 * before it reads writers, so only one party ever zeroes a buffer, and it
 * frees it with a release store of INACTIVE that the next speculation()'s
 * and speculate()'s loads of state acquire: they see it empty.
 * docs/runtime.md, "Speculations", has the full argument.
 *
 * Async-signal-safe: no locks, no allocation, no system call.
 */
#include "vm/spec.h"

#include <string.h>

/* A finisher's claim on a speculation (not in the ABI's states: never seen at rest). */
#define SPEC_CLEANING 4u

static struct udt_spec *spec_of(const struct udt_spectab *t, uint64_t id)
{
	return &t->spec[id - 1];
}

static uint8_t *buf_of(const struct udt_spectab *t, uint32_t i)
{
	return t->data + (uint64_t)i * t->size;
}

uint64_t udt__spec_alloc(const struct udt_spectab *t)
{
	bool busy = false;

	if (!t || !t->n)
		return 0;
	for (uint32_t i = 0; i < t->n; i++) {
		struct udt_spec *s = &t->spec[i];
		uint32_t st = __atomic_load_n(&s->state, __ATOMIC_RELAXED);

		/* acquire: pairs with the finisher's release of INACTIVE (an empty buffer) */
		if (st == UDT_SPEC_INACTIVE &&
		    __atomic_compare_exchange_n(&s->state, &st, UDT_SPEC_ACTIVE, false,
						__ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			return (uint64_t)i + 1;
		busy |= st != UDT_SPEC_INACTIVE && st != UDT_SPEC_ACTIVE;
	}
	__atomic_fetch_add(busy ? t->busy : t->unavail, 1, __ATOMIC_RELAXED);
	return 0;
}

int udt__spec_reserve(const struct udt_spectab *t, uint64_t id, uint32_t size,
		      struct udt_spec_rec *ret)
{
	if (!id)
		return UDT_SPEC_NONE;
	if (!t || id > t->n)
		return UDT_SPEC_BADID;
	struct udt_spec *s = spec_of(t, id);

	/* announce, then look: the commit's compare-and-swap of state and load of writers
	   are the other half (both seq_cst, so one of the two sees the other) */
	__atomic_fetch_add(&s->writers, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&s->state, __ATOMIC_SEQ_CST) != UDT_SPEC_ACTIVE)
		goto none;
	uint64_t off = __atomic_load_n(&s->off, __ATOMIC_RELAXED);
	do {
		/* (records are 8-aligned; a buffer some writer left otherwise is full) */
		if (size > t->size || off > t->size - size || off % 8) {
			__atomic_fetch_add(t->drops, 1, __ATOMIC_RELAXED);
			goto none;
		}
		/* relaxed: the range is ours once we win; the data travels with writers */
	} while (!__atomic_compare_exchange_n(&s->off, &off, off + size, false, __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	ret->spec = s;
	ret->rec = (struct udt_rec *)(void *)(buf_of(t, (uint32_t)(id - 1)) + off);
	ret->size = size;
	return UDT_SPEC_OK;
none:
	__atomic_fetch_sub(&s->writers, 1, __ATOMIC_RELEASE);
	return UDT_SPEC_NONE;
}

void udt__spec_publish(struct udt_spec_rec *r, bool ok)
{
	if (!ok)
		r->rec->epid = UDT_EPID_PAD; /* its room stays taken: a pad the readers skip */
	/* the size last: udt__spec_complete()'s acquire of it sees the whole record */
	__atomic_store_n(&r->rec->size, r->size, __ATOMIC_RELEASE);
	/* pairs with the finisher's load of writers: our bytes before its copy */
	__atomic_fetch_sub(&r->spec->writers, 1, __ATOMIC_RELEASE);
}

bool udt__spec_finish(const struct udt_spectab *t, uint32_t i, bool commit, udt_spec_sink sink,
		      void *arg)
{
	struct udt_spec *s = &t->spec[i];
	uint32_t st = commit ? UDT_SPEC_COMMITTING : UDT_SPEC_DISCARDING;

	/* one finisher at a time (the committer at once, or the consumer later), and only
	   of the state it means to finish: a speculation made anew meanwhile is not its */
	if (!__atomic_compare_exchange_n(&s->state, &st, SPEC_CLEANING, false, __ATOMIC_SEQ_CST,
					 __ATOMIC_RELAXED))
		return false;
	/* seq_cst: a writer that announced itself before the commit is seen here, and
	   acquire: the bytes of every writer that left are visible */
	if (__atomic_load_n(&s->writers, __ATOMIC_SEQ_CST)) {
		__atomic_store_n(&s->state, st, __ATOMIC_RELEASE); /* busy: finished later */
		return false;
	}
	uint64_t len = __atomic_load_n(&s->off, __ATOMIC_RELAXED);
	uint8_t *buf = buf_of(t, i);
	if (len > t->size)
		len = t->size; /* (the consumer's finish of a table the target may have written) */
	if (commit && sink && len)
		(void)sink(arg, buf, len); /* (a sink that cannot take them counts its own drop) */
	/* zeroed, so that a record being written reads as size 0 (udt__spec_complete()) */
	memset(buf, 0, len);
	__atomic_store_n(&s->off, 0, __ATOMIC_RELAXED);
	/* pairs with speculation()'s and speculate()'s acquires of state */
	__atomic_store_n(&s->state, UDT_SPEC_INACTIVE, __ATOMIC_RELEASE);
	return true;
}

int udt__spec_end(const struct udt_spectab *t, uint64_t id, bool commit, udt_spec_sink sink,
		  void *arg)
{
	if (!id)
		return UDT_SPEC_NONE;
	if (!t || id > t->n)
		return UDT_SPEC_BADID;
	struct udt_spec *s = spec_of(t, id);
	uint32_t st = UDT_SPEC_ACTIVE;

	/* a speculation committed or discarded already: silently nothing, as in DTrace */
	if (!__atomic_compare_exchange_n(&s->state, &st,
					 commit ? UDT_SPEC_COMMITTING : UDT_SPEC_DISCARDING, false,
					 __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
		return UDT_SPEC_NONE;
	return udt__spec_finish(t, (uint32_t)(id - 1), commit, sink, arg) ? UDT_SPEC_OK
								   : UDT_SPEC_DEFERRED;
}

void udt__spec_abort_commit(const struct udt_spectab *t, uint32_t i)
{
	uint32_t st = UDT_SPEC_COMMITTING;

	(void)__atomic_compare_exchange_n(&t->spec[i].state, &st, UDT_SPEC_DISCARDING, false,
					  __ATOMIC_SEQ_CST, __ATOMIC_RELAXED);
}

uint64_t udt__spec_complete(const struct udt_spectab *t, uint32_t i)
{
	const uint8_t *buf = buf_of(t, i);
	uint64_t end = __atomic_load_n(&t->spec[i].off, __ATOMIC_ACQUIRE), pos = 0;

	if (end > t->size)
		end = t->size;
	while (pos + sizeof(struct udt_rec) <= end) {
		const struct udt_rec *r = (const struct udt_rec *)(const void *)(buf + pos);
		/* pairs with udt__spec_publish()'s release of the size */
		uint32_t sz = __atomic_load_n(&r->size, __ATOMIC_ACQUIRE);

		if (!sz || sz % 8 || sz > end - pos)
			break;
		pos += sz;
	}
	return pos;
}
