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
#include "vm/vm_mem.h"

#include <pthread.h>
#include <sched.h>
#include <string.h>

/*
 * Thread exit: a pthread key whose destructor gives the thread's buffers back
 * (thread_exit()), made once in the process by the first buffer taken.
 * 0: none yet; 1: being made; 2: made (exit_key); 3: could not be (buffers
 * are then never given back, and a session runs out of them at maxthreads;
 * sessions' memory is never unmapped: session.c).
 */
static uint32_t exit_key_state;
static pthread_key_t exit_key;

/*
 * The thread is exiting (its pthread key's destructor): each buffer it has
 * in a live session is marked EXITED, for the consumer to read out and give
 * back. Later destructors of the program may fire probes: they take new
 * buffers, and set the key again, which brings us back (glibc runs the
 * destructors of keys set meanwhile, up to PTHREAD_DESTRUCTOR_ITERATIONS
 * rounds).
 */
static void thread_exit(void *arg)
{
	struct udt_tls *t = &udt__tls;

	(void)arg;
	t->exit_hooked = false;
	if (t->depth)
		return; /* (pthread_exit() from a handler that interrupted a fire: kept) */
	/*
	 * In a fire, as far as the release of memory is concerned (session.c): a
	 * session whose live byte it then reads 1 keeps its memory until it is
	 * done. (A fire of a signal handler meanwhile is nested: lost, and never
	 * waits for the list's lock.)
	 */
	t->depth = 1;
	COMPILER_BARRIER();
	for (uint32_t s = 0; s < UDT_SLOT_MAX; s++) {
		struct udt_control *c = &udt__ctl.slots[s];
		struct udt_tslot *ts = udt__tslot_of(t, s, LOAD_RELAXED(&c->session));

		t->slot[s] = NULL;
		t->slot_session[s] = 0;
		/* only a live session's current memory: an older one's is given back */
		if (!ts || !udt__active(c) || ts->shm != LOAD_RELAXED(&udt__slot_rt[s].shm))
			continue;
		/* its records, drops and tables before it: pairs with the consumer's acquire */
		STORE_RELEASE(&ts->tb->state, UDT_TBUF_EXITED);
	}
	udt__threads_remove(t);
	t->depth = 0;
}

/* Be told when this thread exits (thread_exit()). */
static void hook_exit(struct udt_tls *t)
{
	uint32_t st = LOAD_ACQUIRE(&exit_key_state);

	if (st == 0 && __atomic_compare_exchange_n(&exit_key_state, &st, 1, false,
						   __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE)) {
		st = pthread_key_create(&exit_key, thread_exit) ? 3 : 2;
		/* pairs with the acquire loads above */
		STORE_RELEASE(&exit_key_state, st);
	}
	/* another thread is making it (a few instructions; never this one: a fire nested in
	   that one is lost before it comes here) */
	while (st == 1) {
		sched_yield();
		st = LOAD_ACQUIRE(&exit_key_state);
	}
	if (st == 2 && pthread_setspecific(exit_key, (void *)1) == 0)
		t->exit_hooked = true;
}

/* Pop a buffer the consumer gave back (udt_shm_hdr.free_head), or UINT32_MAX. */
static uint32_t pop_free(struct udt_shm_hdr *shm, struct udt_slot_rt *r)
{
	uint64_t head = LOAD_ACQUIRE(&shm->free_head);

	for (;;) {
		uint32_t i1 = (uint32_t)head, j;

		if (!i1 || i1 > LOAD_RELAXED(&shm->tbuf_cnt) || i1 > shm->tbuf_max)
			return UINT32_MAX;
		uint32_t k = udt_seg_of(shm->seg0_tbufs, i1 - 1, &j);
		/* (the consumer gives back only buffers it read: their segment is made) */
		if (LOAD_ACQUIRE(&shm->seg_state[k]) != UDT_SHM_READY)
			return UINT32_MAX;
		struct udt_seg_layout l = { .tbuf_off = shm->tbuf_off };
		if (k)
			udt_seg_layout(udt_seg_tbufs(shm->seg0_tbufs, k), shm->bufsize,
				       shm->aggsize, shm->tvarsize, shm->tlocal_sz, &l);
		const struct udt_tbuf *tb = (const struct udt_tbuf *)(const void *)(r->seg[k] +
										  l.tbuf_off) + j;
		/* (read before the CAS; the tag makes a stale one fail it) */
		uint32_t next = LOAD_RELAXED(&tb->next_free);
		uint64_t nw = ((head >> 32) + 1) << 32 | next;
		/* pairs with the consumer's release push: the buffer's reset is seen */
		if (__atomic_compare_exchange_n(&shm->free_head, &head, nw, false, __ATOMIC_ACQUIRE,
						__ATOMIC_ACQUIRE))
			return i1 - 1;
	}
}

struct udt_tslot *udt__thread_slot(struct udt_control *c, uint32_t session)
{
	struct udt_tls *t = &udt__tls;
	uint32_t slot = udt__slot_of(c);

	/* listed before it looks at the memory, which is then unmapped only once it is out of
	   its fires (session.c); and the session looked at again, after the list's lock */
	if (!t->exit_hooked)
		hook_exit(t);
	if (!t->exit_hooked)
		udt__threads_untracked();
	else if (!t->listed)
		udt__threads_add(t);
	if (!udt__active(c) || LOAD_ACQUIRE(&c->session) != session)
		return NULL; /* (over: not a fire of it) */
	struct udt_shm_hdr *shm = udt__shm_get(c, session);

	if (!shm) {
		udt__lost(c);
		return NULL;
	}
	struct udt_tslot *ts = udt__tslot_of(t, slot, shm->session);
	if (ts && ts->shm == shm)
		return ts;
	struct udt_slot_rt *r = &udt__slot_rt[slot];
	/* one given back, or one never used */
	uint32_t i = pop_free(shm, r);
	if (i == UINT32_MAX) {
		/* (past the last buffer, no more taken: the count stays below overflow) */
		if (LOAD_RELAXED(&shm->tbuf_cnt) >= shm->tbuf_max ||
		    (i = __atomic_fetch_add(&shm->tbuf_cnt, 1, __ATOMIC_RELAXED)) >= shm->tbuf_max) {
			__atomic_fetch_add(&shm->lost_nobuf, 1, __ATOMIC_RELAXED);
			return NULL;
		}
	}
	/* in the main memory, or in a segment (made now if it is the first of it) */
	uint32_t j, k = udt_seg_of(shm->seg0_tbufs, i, &j);
	struct udt_seg_layout l = { shm->tbuf_off, shm->data_off, shm->agg_off, shm->tvar_off,
				    shm->tlocal_off, 0 };
	if (k) {
		if (!udt__seg_get(c, shm, k)) {
			/* (buffer i is never used: a later thread takes another) */
			__atomic_fetch_add(&shm->lost_nomem, 1, __ATOMIC_RELAXED);
			return NULL;
		}
		udt_seg_layout(udt_seg_tbufs(shm->seg0_tbufs, k), shm->bufsize, shm->aggsize,
			       shm->tvarsize, shm->tlocal_sz, &l);
	}
	uint8_t *base = r->seg[k];
	struct udt_tbuf *tb = (struct udt_tbuf *)(void *)(base + l.tbuf_off) + j;

	/* the session's threads' states were made with its memory (session.c), zeroed; a
	   state used before is its previous thread's, and so are its self-> variables */
	ts = &r->seg_ts[k][j];
	memset(ts, 0, sizeof(*ts));
	ts->hit_sem = UDT_NO_KEY;
	if (!t->tid)
		t->tid = udt__gettid();
	tb->tid = t->tid;
	uint32_t owner = __atomic_add_fetch(&shm->owners, 1, __ATOMIC_RELAXED);
	if (owner == UDT_VM_CONSUMER_THREAD)
		owner = __atomic_add_fetch(&shm->owners, 1, __ATOMIC_RELAXED);
	tb->owner = owner;
	ts->tb = tb;
	ts->shm = shm;
	ts->ring_chunk = shm->ring_chunk;
	ts->data = base + l.data_off + (uint64_t)j * 2 * shm->bufsize;
	ts->aggsize = shm->aggsize;
	ts->agg = ts->aggsize ? base + l.agg_off + (uint64_t)j * 2 * ts->aggsize : NULL;
	ts->ntvars = (uint32_t)(shm->tvarsize / 8);
	ts->tvars = ts->ntvars ? (uint64_t *)(void *)(base + l.tvar_off + (uint64_t)j * shm->tvarsize)
			       : NULL;
	if (ts->tvars)
		memset(ts->tvars, 0, shm->tvarsize);
	ts->tlocal = shm->tlocal_sz ? base + l.tlocal_off + (uint64_t)j * shm->tlocal_sz : NULL;
	if (ts->tlocal)
		memset(ts->tlocal, 0, shm->tlocal_sz);
	if (shm->nspec) {
		uint8_t *m = (uint8_t *)shm;
		ts->spec = (struct udt_spectab){
			.spec = (struct udt_spec *)(void *)(m + shm->spec_off),
			.n = (uint32_t)shm->nspec,
			.data = m + shm->spec_data_off,
			.size = shm->specsize,
			.drops = &shm->spec_drops,
			.busy = &shm->spec_busy,
			.unavail = &shm->spec_unavail,
		};
	}
	/* the globals: the process tree's (a fork child's), or this memory's */
	const struct udt_globals *g = &r->globals;
	bool shared = g->map && g->session == shm->session;
	ts->gvars = shared ? g->gvars : (uint64_t *)(void *)((uint8_t *)shm + shm->gvar_off);
	ts->ngvars = shared ? g->ngvars : (uint32_t)shm->ngvars;
	ts->gstrs = shared && g->gstrs ? g->gstrs : (uint8_t *)shm + shm->gstr_off;
	ts->session = shm->session;
	STORE_RELAXED(&tb->state, UDT_TBUF_OWNED);
	t->cpu_id = udt__rseq_cpu();
	t->slot[slot] = ts;
	t->slot_session[slot] = ts->session;
	return ts;
}

/*
 * ring: the head has reached the end of its chunk (record.h): pad the rest
 * of it, and start the next, moving the tail past what it will overwrite.
 */
uint64_t udt__ring_next(struct udt_tslot *t, uint32_t size)
{
	uint8_t *half = t->data;
	struct udt_tbuf *tb = t->tb;
	uint64_t B = t->shm->bufsize, C = t->ring_chunk;
	uint64_t head = tb->off[0];

	if (size > C || !C) {
		tb->drops[0]++;
		STORE_RELEASE(&tb->busy, 0);
		return UINT64_MAX;
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
	return head;
}
