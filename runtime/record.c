/* SPDX-License-Identifier: MIT */
/*
 * Per-thread principal buffers: reserving and committing records.
 *
 * Each thread that fires takes a struct udt_tbuf and two halves of bufsize
 * bytes in the session's shared memory (one atomic add, once per thread and
 * session). Records are 8-aligned, start with struct udt_rec, and never
 * straddle a half. The thread is the only writer of its buffer; the
 * consumer reads it from its own mapping. The three policies of the DTrace
 * buffer chapter:
 *
 * switch  The producer writes into half `active`; the consumer flips
 *         `active` and then reads the other half, up to off[], and resets
 *         it. To know that the producer has left the old half, it needs the
 *         producer's `busy` (1 + the half being written) after the flip. The
 *         producer stores busy and then re-reads active; the consumer stores
 *         active, runs membarrier(MEMBARRIER_CMD_GLOBAL) (every running
 *         thread executes a full barrier) and then reads busy. Either the
 *         producer sees the new half, or the consumer sees it busy and waits:
 *         no record is lost or torn, and the producer needs no fence of its
 *         own (UDT_CTL_FENCE asks for one where membarrier is missing). A
 *         record that does not fit in the active half is dropped and counted
 *         in drops[], which the consumer reports ("N drops on CPU n").
 * fill    One half. The first record that does not fit stops tracing for
 *         every thread (shm->stopped); the consumer then runs END and exits.
 * ring    One half, circular. off[0] is the head and ring_tail the oldest
 *         record, both monotonic; a new record overwrites the oldest ones
 *         (ring_tail moves past them) and a pad record fills the end of the
 *         half when a record would not fit there. The consumer reads it all
 *         at the end, oldest to newest.
 *
 * A record larger than the half is dropped under every policy.
 */
#include "runtime/internal.h"

#include <string.h>

/* This thread's buffer for the session of shm; NULL when none could be had. */
static struct udt_tbuf *thread_buffer(struct udt_shm_hdr *shm)
{
	struct udt_tls *t = &udt__tls;

	if (t->session == shm->session)
		return t->tb;
	t->session = shm->session;
	t->tb = NULL;
	uint32_t i = __atomic_fetch_add(&shm->tbuf_cnt, 1, __ATOMIC_RELAXED);
	if (i >= shm->tbuf_max)
		return NULL;
	struct udt_tbuf *tb = (struct udt_tbuf *)((uint8_t *)shm + shm->tbuf_off) + i;

	if (!t->tid)
		t->tid = udt__gettid();
	tb->tid = t->tid;
	t->data = (uint8_t *)shm + shm->data_off + (uint64_t)i * 2 * shm->bufsize;
	t->tb = tb;
	return tb;
}

static inline void full_fence_if(struct udt_shm_hdr *shm)
{
	(void)shm;
	if (LOAD_RELAXED(&udt__control.flags) & UDT_CTL_FENCE)
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
	else
		COMPILER_BARRIER();
}

/* ring: make room for size bytes at the head, moving the tail past overwritten records. */
static void *ring_reserve(struct udt_shm_hdr *shm, struct udt_tbuf *tb, uint8_t *half,
			  struct udt_rec_ctx *rc, uint32_t size)
{
	uint64_t B = shm->bufsize;
	uint64_t head = tb->off[0], tail = tb->ring_tail;
	uint64_t pos = head % B;

	if (pos + size > B) {
		/* pad to the end of the half: the record goes to its start */
		uint64_t pad = B - pos;

		while (head + pad - tail > B) {
			struct udt_rec *old = (struct udt_rec *)(half + tail % B);
			tail += old->size ? old->size : B - tail % B;
		}
		/* a pad may be 8 bytes: only its size and epid are written */
		struct udt_rec *p = (struct udt_rec *)(half + pos);
		p->size = (uint32_t)pad;
		p->epid = UDT_EPID_PAD;
		head += pad;
		pos = 0;
	}
	while (head + size - tail > B) {
		struct udt_rec *old = (struct udt_rec *)(half + tail % B);
		tail += old->size ? old->size : B - tail % B;
	}
	/* pairs with the consumer's acquire of ring_tail at the end */
	STORE_RELEASE(&tb->ring_tail, tail);
	rc->off = head;
	return half + pos;
}

void *udt__rec_reserve(struct udt_shm_hdr *shm, struct udt_rec_ctx *rc, uint32_t size,
		       uint32_t flags)
{
	struct udt_tbuf *tb;
	uint32_t a;

	(void)flags;
	if (LOAD_RELAXED(&shm->stopped))
		return NULL;
	tb = thread_buffer(shm);
	if (!tb) {
		udt__lost(&udt__control);
		return NULL;
	}
	rc->shm = shm;
	rc->tb = tb;
	rc->size = size;

	switch (shm->policy) {
	case UDT_POLICY_RING:
		rc->which = 0;
		rc->half = udt__tls.data;
		if (size > shm->bufsize) {
			tb->drops[0]++;
			return NULL;
		}
		STORE_RELAXED(&tb->busy, 1);
		return ring_reserve(shm, tb, rc->half, rc, size);
	case UDT_POLICY_FILL:
		a = 0;
		break;
	default:
		a = LOAD_RELAXED(&tb->active) & 1;
		break;
	}
	/* announce the half, then check it is still the active one (see above) */
	for (;;) {
		STORE_RELAXED(&tb->busy, a + 1);
		full_fence_if(shm);
		if (shm->policy != UDT_POLICY_SWITCH)
			break;
		uint32_t now = LOAD_ACQUIRE(&tb->active) & 1;
		if (now == a)
			break;
		a = now;
	}
	rc->which = a;
	rc->half = udt__tls.data + (uint64_t)a * shm->bufsize;
	rc->off = LOAD_RELAXED(&tb->off[a]);
	if (size > shm->bufsize || rc->off + size > shm->bufsize) {
		tb->drops[a]++;
		if (shm->policy == UDT_POLICY_FILL)
			STORE_RELAXED(&shm->stopped, 1);
		STORE_RELEASE(&tb->busy, 0);
		return NULL;
	}
	return rc->half + rc->off;
}

void udt__rec_commit(struct udt_rec_ctx *rc)
{
	struct udt_tbuf *tb = rc->tb;

	/* the record's bytes before its offset: pairs with the consumer's acquire of off[] */
	STORE_RELEASE(&tb->off[rc->which], rc->off + rc->size);
	STORE_RELEASE(&tb->busy, 0);
}

void udt__rec_abandon(struct udt_rec_ctx *rc)
{
	/* ring: a pad record may have been written: the head moves past it */
	if (rc->shm->policy == UDT_POLICY_RING)
		STORE_RELEASE(&rc->tb->off[0], rc->off);
	STORE_RELEASE(&rc->tb->busy, 0);
}
