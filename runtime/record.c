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
 *         active, runs a membarrier (every running thread of the process
 *         executes a full barrier: see session.c for which one) and then
 *         reads busy. Either the
 *         producer sees the new half, or the consumer sees it busy and waits:
 *         no record is lost or torn, and the producer needs no fence of its
 *         own (UDT_CTL_FENCE asks for one where membarrier is missing). A
 *         record that does not fit in the active half is dropped and counted
 *         in drops[], which the consumer reports ("N drops on CPU n").
 * fill    One half. The first record that does not fit stops tracing for
 *         every thread (shm->stopped); the consumer then runs END and exits.
 * ring    One half, circular, in chunks (16 of them, or fewer and larger
 *         when the session's largest record needs it: shm->ring_chunk).
 *         off[0] is the head and ring_tail the oldest record, both
 *         monotonic. Records never straddle a chunk: a pad record fills the
 *         end of one when the next record would not fit. So chunks start
 *         with a record, and when the head moves into a chunk, the tail
 *         moves past the whole of it: the newest records kept are the last
 *         15 to 16 chunks' (DTrace's walks the tail record by record: that
 *         reads each overwritten record's header, a cache miss a bufsize
 *         back, and cost 4 ns a record here). The consumer reads it all at
 *         the end, oldest to newest.
 *
 * A record larger than the half (ring: than a chunk) is dropped under every
 * policy.
 */
#include "runtime/record.h"

#include <string.h>

struct udt_tslot *udt__thread_slot(struct udt_control *c, uint32_t session)
{
	struct udt_tls *t = &udt__tls;
	uint32_t slot = udt__slot_of(c);
	struct udt_shm_hdr *shm = udt__shm_get(c, session);

	if (!shm)
		return NULL;
	struct udt_tslot *ts = t->slot[slot];
	if (ts && ts->session == shm->session && ts->shm == shm)
		return ts;
	/* (past the last buffer, no more taken: the count stays below overflow) */
	if (LOAD_RELAXED(&shm->tbuf_cnt) >= shm->tbuf_max)
		return NULL;
	uint32_t i = __atomic_fetch_add(&shm->tbuf_cnt, 1, __ATOMIC_RELAXED);
	if (i >= shm->tbuf_max)
		return NULL;
	struct udt_tbuf *tb = (struct udt_tbuf *)((uint8_t *)shm + shm->tbuf_off) + i;

	/* the session's threads' states were made with its memory (session.c), zeroed */
	ts = &udt__slot_rt[slot].tslots[i];
	if (!t->tid)
		t->tid = udt__gettid();
	tb->tid = t->tid;
	ts->tb = tb;
	ts->shm = shm;
	ts->ring_chunk = shm->ring_chunk;
	ts->data = (uint8_t *)shm + shm->data_off + (uint64_t)i * 2 * shm->bufsize;
	ts->aggsize = shm->aggsize;
	ts->agg = ts->aggsize ? (uint8_t *)shm + shm->agg_off + (uint64_t)i * 2 * ts->aggsize
			      : NULL;
	ts->ntvars = (uint32_t)(shm->tvarsize / 8);
	ts->tvars = ts->ntvars ? (uint64_t *)(void *)((uint8_t *)shm + shm->tvar_off +
						    (uint64_t)i * shm->tvarsize) : NULL;
	if (shm->nspec) {
		uint8_t *base = (uint8_t *)shm;
		ts->spec = (struct udt_spectab){
			.spec = (struct udt_spec *)(void *)(base + shm->spec_off),
			.n = (uint32_t)shm->nspec,
			.data = base + shm->spec_data_off,
			.size = shm->specsize,
			.drops = &shm->spec_drops,
			.busy = &shm->spec_busy,
			.unavail = &shm->spec_unavail,
		};
	}
	ts->session = shm->session;
	t->cpu_id = udt__rseq_cpu();
	t->slot[slot] = ts;
	return ts;
}

/*
 * ring: the head has reached the end of its chunk (record.h): pad the rest
 * of it, and start the next, moving the tail past what it will overwrite.
 */
void *udt__ring_reserve(struct udt_tslot *t, uint8_t *half, struct udt_rec_ctx *rc, uint32_t size)
{
	struct udt_tbuf *tb = t->tb;
	uint64_t B = t->shm->bufsize, C = t->ring_chunk;
	uint64_t head = tb->off[0];

	if (size > C || !C) {
		tb->drops[0]++;
		STORE_RELEASE(&tb->busy, 0);
		return NULL;
	}
	if (head < t->ring_end) {
		/* a pad may be 8 bytes: only its size and epid are written */
		struct udt_rec *p = (struct udt_rec *)(half + (head - t->ring_lap));

		p->size = (uint32_t)(t->ring_end - head);
		p->epid = UDT_EPID_PAD;
		head = t->ring_end;
	}
	if (head - t->ring_lap >= B)
		t->ring_lap += B; /* back to the start of the half */
	t->ring_end = head + C;
	/* pairs with the consumer's acquire of ring_tail at the end */
	if (t->ring_end > B && LOAD_RELAXED(&tb->ring_tail) < t->ring_end - B)
		STORE_RELEASE(&tb->ring_tail, t->ring_end - B);
	rc->off = head;
	return half + (head - t->ring_lap);
}
