/* SPDX-License-Identifier: MIT */
/*
 * Reserving and committing records in a thread's buffer: the probe path's
 * half of record.c (the buffer policies are explained there), inline so that
 * a fire makes no call for it.
 */
#ifndef UDT_RUNTIME_RECORD_H
#define UDT_RUNTIME_RECORD_H

#include "runtime/internal.h"

struct udt_rec_ctx {
	struct udt_shm_hdr *shm;
	struct udt_tbuf *tb;
	uint8_t *half;            /* the half being written */
	uint32_t which;           /* its index */
	uint64_t off;             /* where the record goes */
	uint32_t size;
};

/*
 * This thread's state in slot c's session, with its buffer in the session's
 * shared memory (made by the session's first fire), taken at the thread's
 * first fire (one given back by the consumer, or a new one); NULL when
 * there is none (the fire is lost, and counted: lost_nobuf, or lost when the
 * memory could not be had). Sets udt__tls.slot[] for the slot, and hooks the
 * thread's exit, which gives its buffers back.
 */
struct udt_tslot *udt__thread_slot(struct udt_control *c, uint32_t session);
/*
 * ring: the head has reached the end of its chunk: the offset of size bytes
 * at the start of a new chunk, or UINT64_MAX if the record is dropped
 * (record.c). (No context passed: the fire's stays in registers.)
 */
uint64_t udt__ring_next(struct udt_tslot *t, uint32_t size);

/*
 * Reserve size bytes in tb, this thread's buffer (in shm) of session t; NULL
 * if the record is dropped.
 */
static inline __attribute__((always_inline)) void *udt__rec_reserve(struct udt_tslot *t,
								     struct udt_shm_hdr *shm,
								     struct udt_tbuf *tb,
								     struct udt_rec_ctx *rc,
								     uint32_t size)
{
	uint32_t policy = shm->policy, a;

	if (LOAD_RELAXED(&shm->stopped))
		return NULL;
	rc->shm = shm;
	rc->tb = tb;
	rc->size = size;
	if (policy == UDT_POLICY_RING) {
		uint64_t head = tb->off[0];

		STORE_RELAXED(&tb->busy, 1);
		if (head + size > t->ring_end && (head = udt__ring_next(t, size)) == UINT64_MAX)
			return NULL;
		rc->which = 0;
		rc->half = t->data;
		rc->off = head;
		/* (the records it held: so that those overwritten are counted) */
		tb->ring_recs++;
		return rc->half + (head - t->ring_lap);
	}
	a = policy == UDT_POLICY_FILL ? 0 : LOAD_RELAXED(&tb->active) & 1;
	/* announce the half, then check it is still the active one (record.c) */
	for (;;) {
		STORE_RELAXED(&tb->busy, a + 1);
		if (LOAD_RELAXED(&udt__ctl.hdr.flags) & UDT_CTL_FENCE)
			__atomic_thread_fence(__ATOMIC_SEQ_CST);
		else
			COMPILER_BARRIER();
		if (policy != UDT_POLICY_SWITCH)
			break;
		uint32_t now = LOAD_ACQUIRE(&tb->active) & 1;
		if (now == a)
			break;
		a = now;
	}
	rc->which = a;
	rc->half = t->data + (uint64_t)a * shm->bufsize;
	rc->off = LOAD_RELAXED(&tb->off[a]);
	if (size > shm->bufsize || rc->off + size > shm->bufsize) {
		/* fill: the buffer is full and tracing stops, which ends the session as
		   exit() does: as DTrace's, this fire is no drop */
		if (policy == UDT_POLICY_FILL)
			STORE_RELAXED(&shm->stopped, 1);
		else
			tb->drops[a]++;
		STORE_RELEASE(&tb->busy, 0);
		return NULL;
	}
	return rc->half + rc->off;
}

static inline void udt__rec_commit(struct udt_rec_ctx *rc)
{
	uint64_t end = rc->off + rc->size, mid = rc->shm->bufsize / 2;

	/* the record's bytes before its offset: pairs with the consumer's acquire of off[] */
	STORE_RELEASE(&rc->tb->off[rc->which], end);
	STORE_RELEASE(&rc->tb->busy, 0);
	/* (a burst after an idle spell, whose consumer paces slowly: docs/runtime.md) */
	if (__builtin_expect(rc->off < mid && end >= mid, 0))
		udt__wake_shm(rc->shm);
}

static inline void udt__rec_abandon(struct udt_rec_ctx *rc)
{
	/* ring: a pad record may have been written: the head moves past it */
	if (rc->shm->policy == UDT_POLICY_RING) {
		STORE_RELEASE(&rc->tb->off[0], rc->off);
		rc->tb->ring_recs--;
	}
	STORE_RELEASE(&rc->tb->busy, 0);
}

#endif /* UDT_RUNTIME_RECORD_H */
