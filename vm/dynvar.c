/* SPDX-License-Identifier: MIT */
/*
 * The dynamic variable space: associative arrays (global a[k] and
 * thread-local self->a[k]) shared by every thread of the traced process,
 * in the session's shared memory so that dtrace's END sees them after the
 * process is gone. DTrace's dtrace_dynvar() is the model; the cleaning that
 * DTrace does with a cross-call to every CPU is done here by the consumer,
 * which has no lock to take either.
 *
 * Layout (struct udt_dynhdr, abi.h): a header, a hash of 1 << hash_bits
 * chains (uint32_t each: index + 1 of the chain's first element, 0 none),
 * then chunk_cnt elements of chunk_sz bytes, every one the same size (the
 * largest key and value of the program, computed by the consumer). An
 * element is struct udt_dynvar, its key (the variable, the thread for a
 * thread-local array, then each key: 8 bytes of integer, or strsize
 * rounded up to 8 of string, zero-padded so that keys compare with memcmp),
 * then its value (8 bytes, or a string). Absent elements read as 0 (NULL
 * for a string); storing 0 deletes.
 *
 * Who writes what, and why it is safe without a lock:
 *
 *  - Insertion (any thread, and the consumer's END). A new element is taken
 *    from the free list (a stack popped with a compare-and-swap on a word
 *    holding an index and a tag, so that ABA cannot happen), or from the
 *    never-used tail (a CAS on `fresh`); its key, value and hash are written
 *    with plain stores, its `next` set to the chain's head, and it is
 *    published by a CAS of the head with release order. A reader loads the
 *    head and every `next` with acquire order, so it sees a published
 *    element whole. If the CAS fails, another thread changed the chain: the
 *    lookup is done again (the other thread may have inserted the same key;
 *    then the new element goes back to the free list unpublished), so a key
 *    is live at most once.
 *  - Deletion (storing 0) only marks the element DEAD (a CAS from LIVE, so
 *    one deleter counts it in `dirty`); lookups skip it. Nothing is
 *    unlinked on the probe path.
 *  - Cleaning (the consumer, consumer/vars.c, at cleanrate): it unlinks
 *    the dead elements, the only writer of interior `next` fields (a head
 *    is removed with a CAS, as a thread may be inserting in front of it),
 *    then keeps them aside ("rinsing") until every thread that could have
 *    reached one before the unlink has left its fire. A thread stores an
 *    odd dyn_gen in its struct udt_tbuf before it looks at the space and
 *    an even one after (vm_mem.h); the consumer, after the unlink, issues
 *    membarrier(MEMBARRIER_CMD_GLOBAL), which makes every running thread
 *    pass a full barrier, then reads each dyn_gen: a thread seen outside
 *    will find the chains as they are now; one seen inside is waited for
 *    until its dyn_gen changes. Then the elements go to the free list. So
 *    an element a thread holds is never reused under it, and a thread
 *    never waits for anyone.
 *  - Values are written in place: an integer with one relaxed 8-byte store,
 *    a string byte by byte. Threads racing on one element race as they do
 *    in DTrace (the last writer wins; a string may be read torn); a string
 *    is always read within strsize bytes and its element, whatever it holds.
 *
 * When no element is free the new key is dropped and counted: in `drops`,
 * or `dirty_drops` while deleted elements await the cleaner, or
 * `rinse_drops` while cleaned ones await the threads; the consumer reports
 * them as DTrace does ("dtrace: 3 dynamic variable drops with non-empty
 * dirty list"). Every index read from the shared memory is checked against
 * chunk_cnt and every chain walk is bounded by it, so a corrupted space can
 * lose variables but never take a thread outside it or into a loop.
 */
#include "vm/vm_mem.h"

#include <errno.h>
#include <linux/futex.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define LOAD_RELAXED(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#define LOAD_ACQUIRE(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define STORE_RELAXED(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)
#define STORE_RELEASE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)

/* A failed insertion is retried this many times (other threads changing the chain) at most. */
#define INSERT_TRIES 64

/*
 * The space as this file reads it: its geometry taken once, from a header
 * the caller trusts (the consumer's copy of the target's), and checked;
 * the live header h for the counters and the free list.
 */
struct space {
	struct udt_dynhdr *h;
	uint8_t *chunks;
	uint32_t *hash;
	uint32_t bits, chunk_sz, chunk_cnt;
};

static struct udt_dynvar *elem(const struct space *s, uint32_t idx1)
{
	return (struct udt_dynvar *)(void *)(s->chunks + (uint64_t)(idx1 - 1) * s->chunk_sz);
}

static uint32_t index_of(const struct space *s, const struct udt_dynvar *e)
{
	return (uint32_t)(((const uint8_t *)e - s->chunks) / s->chunk_sz) + 1;
}

bool udt__dyn_geometry_ok(const struct udt_dynhdr *h, uint64_t sz)
{
	return h->size == sizeof(*h) && h->hash_bits >= 1 && h->hash_bits <= 20 &&
	       h->chunk_sz >= sizeof(struct udt_dynvar) + 8 && h->chunk_sz % 8 == 0 &&
	       h->chunks_off >= sizeof(*h) + ((uint64_t)4 << h->hash_bits) &&
	       h->chunks_off <= sz && (uint64_t)h->chunk_cnt * h->chunk_sz <= sz - h->chunks_off;
}

/* The space h of sz bytes, its geometry from geo (NULL: h's own), if it is one this file made. */
static bool space_open(struct udt_dynhdr *h, const struct udt_dynhdr *geo, uint64_t sz,
		       struct space *ret)
{
	struct udt_dynhdr g;

	if (!h)
		return false;
	if (!geo)
		geo = h;
	/* (each field once: a header in shared memory may change under us) */
	g.size = LOAD_RELAXED(&geo->size);
	g.chunk_sz = LOAD_RELAXED(&geo->chunk_sz);
	g.hash_bits = LOAD_RELAXED(&geo->hash_bits);
	g.chunk_cnt = LOAD_RELAXED(&geo->chunk_cnt);
	g.chunks_off = LOAD_RELAXED(&geo->chunks_off);
	if (!udt__dyn_geometry_ok(&g, sz))
		return false;
	*ret = (struct space){
		.h = h,
		.chunks = (uint8_t *)h + g.chunks_off,
		.hash = (uint32_t *)(void *)((uint8_t *)h + g.size),
		.bits = g.hash_bits,
		.chunk_sz = g.chunk_sz,
		.chunk_cnt = g.chunk_cnt,
	};
	return true;
}

/* Where the elements start in a space whose hash has 2^bits chains. */
static uint64_t chunks_off(uint32_t bits)
{
	return (sizeof(struct udt_dynhdr) + ((uint64_t)4 << bits) + 63) & ~63ull;
}

uint64_t udt__dyn_min_size(uint32_t chunk_sz)
{
	return chunks_off(4) + chunk_sz;
}

int udt__dyn_init(struct udt_dynhdr *h, uint64_t size, uint32_t chunk_sz)
{
	uint32_t bits = 4;

	if (chunk_sz < sizeof(struct udt_dynvar) + 8 || chunk_sz % 8 || size < sizeof(*h))
		return -EINVAL;
	/* about a chain per element, as DTrace sizes its hash */
	while (bits < 20 && ((uint64_t)2 << bits) * (chunk_sz + 4) <= size)
		bits++;
	uint64_t off = chunks_off(bits);
	if (off + chunk_sz > size)
		return -EINVAL;
	uint64_t cnt = (size - off) / chunk_sz;
	*h = (struct udt_dynhdr){
		.size = sizeof(*h),
		.chunk_sz = chunk_sz,
		.hash_bits = bits,
		.chunk_cnt = cnt > UINT32_MAX - 1 ? UINT32_MAX - 1 : (uint32_t)cnt,
		.chunks_off = off,
	};
	/* (the hash is zero: the memory is fresh) */
	return 0;
}

static uint32_t key_hash(const uint8_t *key, uint32_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (uint32_t i = 0; i < n; i += 8) {
		uint64_t w;
		memcpy(&w, key + i, 8);
		h = (h ^ w) * 0x100000001b3ull;
		h ^= h >> 29;
	}
	return (uint32_t)(h ^ (h >> 32));
}

/* The live element of key (n bytes, hash hv) in the chain starting at head, or NULL. */
static struct udt_dynvar *find(const struct space *s, uint32_t head, const uint8_t *key, uint32_t n,
			       uint32_t hv)
{
	uint32_t i = head;

	for (uint32_t steps = 0; i && i <= s->chunk_cnt && steps < s->chunk_cnt; steps++) {
		struct udt_dynvar *e = elem(s, i);

		if (e->hash == hv && e->key_sz == n && LOAD_ACQUIRE(&e->state) == UDT_DYN_LIVE &&
		    !memcmp(e + 1, key, n))
			return e;
		/* pairs with the release of the element's publication */
		i = LOAD_ACQUIRE(&e->next);
	}
	return NULL;
}

static void free_push(const struct space *s, struct udt_dynvar *e)
{
	uint64_t old = LOAD_RELAXED(&s->h->free_head), nw;

	STORE_RELAXED(&e->state, UDT_DYN_FREE);
	do {
		STORE_RELAXED(&e->next, (uint32_t)old);
		nw = ((old >> 32) + 1) << 32 | index_of(s, e);
		/* release: the element's fields before it is on the list */
	} while (!__atomic_compare_exchange_n(&s->h->free_head, &old, nw, true, __ATOMIC_RELEASE,
					      __ATOMIC_RELAXED));
}

/* A free element (from the free list, else never used), or NULL with the drop counted. */
static struct udt_dynvar *alloc(const struct space *s)
{
	uint64_t old = LOAD_ACQUIRE(&s->h->free_head);

	for (int tries = 0; (uint32_t)old && tries < INSERT_TRIES; tries++) {
		uint32_t i = (uint32_t)old;
		if (i > s->chunk_cnt)
			break;
		/* (the element may be taken and changed meanwhile: then the tag has moved on) */
		uint32_t next = LOAD_RELAXED(&elem(s, i)->next);
		uint64_t nw = ((old >> 32) + 1) << 32 | next;
		if (__atomic_compare_exchange_n(&s->h->free_head, &old, nw, true, __ATOMIC_ACQUIRE,
						__ATOMIC_ACQUIRE))
			return elem(s, i);
	}
	uint32_t f = LOAD_RELAXED(&s->h->fresh);
	while (f < s->chunk_cnt)
		if (__atomic_compare_exchange_n(&s->h->fresh, &f, f + 1, true, __ATOMIC_RELAXED,
						__ATOMIC_RELAXED))
			return elem(s, f + 1);
	if (LOAD_RELAXED(&s->h->dirty))
		__atomic_fetch_add(&s->h->dirty_drops, 1, __ATOMIC_RELAXED);
	else if (LOAD_RELAXED(&s->h->rinsing))
		__atomic_fetch_add(&s->h->rinse_drops, 1, __ATOMIC_RELAXED);
	else
		__atomic_fetch_add(&s->h->drops, 1, __ATOMIC_RELAXED);
	return NULL;
}

/*
 * Find the element of key (n bytes); with create, make it when absent (its
 * value zeroed, vsz bytes). NULL when absent, or when none is free.
 */
static struct udt_dynvar *lookup(const struct space *s, const uint8_t *key, uint32_t n,
				 uint32_t vsz, bool create)
{
	uint32_t hv = key_hash(key, n);
	uint32_t *chain = &s->hash[hv >> (32 - s->bits)];
	struct udt_dynvar *nw = NULL;

	for (int tries = 0; tries < INSERT_TRIES; tries++) {
		/* pairs with the release of the CAS that published the head */
		uint32_t head = LOAD_ACQUIRE(chain);
		struct udt_dynvar *e = find(s, head, key, n, hv);

		if (e || !create) {
			if (nw)
				free_push(s, nw); /* someone else inserted the key first */
			return e;
		}
		if (!nw) {
			nw = alloc(s);
			if (!nw)
				return NULL;
			nw->hash = hv;
			nw->key_sz = n;
			memcpy(nw + 1, key, n);
			memset((uint8_t *)(nw + 1) + n, 0, vsz);
			STORE_RELAXED(&nw->state, UDT_DYN_LIVE);
		}
		STORE_RELAXED(&nw->next, head);
		if (__atomic_compare_exchange_n(chain, &head, index_of(s, nw), false,
						__ATOMIC_RELEASE, __ATOMIC_RELAXED))
			return nw;
	}
	if (nw)
		free_push(s, nw);
	__atomic_fetch_add(&s->h->drops, 1, __ATOMIC_RELAXED);
	return NULL;
}

/*
 * LDDV and STDV (docs/bytecode.md §3.11). The key is built in the scratch
 * space (given back afterwards), each string component read as subroutines
 * read strings.
 */
uint32_t udt__vm_dynvar(struct udt_vm_ctx *ctx, const struct udt_difo *d, bool store,
			uint32_t imm, const uint64_t *keys, uint32_t nkeys, uint64_t *val,
			uint64_t refsize, uint64_t *bad)
{
	struct udt_vm_mem *m = ctx->mem;
	struct space s;
	bool strval = imm & UDT_DV_STRVAL, refval = imm & UDT_DV_REFVAL;

	*bad = 0;
	if (!m || !space_open(m->dyn, m->dyn_geo, m->dyn_sz, &s) || nkeys > UDT_DV_MAX_KEYS)
		return UDT_FAULT_BADVAR;
	uint64_t sslot = ((uint64_t)m->strsize + 7) & ~7ull;
	/* (a load of bytes gives their address: their size does not matter) */
	uint64_t ksz = 8, vsz = strval ? sslot : refval ? (refsize + 7) & ~7ull : 8;
	if (refval && refsize > s.chunk_sz)
		return UDT_FAULT_BADVAR;
	for (uint32_t k = 0; k < nkeys; k++)
		ksz += (imm >> (UDT_DV_STRKEYS_SHIFT + k)) & 1 ? sslot : 8;
	if (sizeof(struct udt_dynvar) + ksz + vsz > s.chunk_sz)
		return UDT_FAULT_BADVAR;

	uint64_t mark = m->scratch_used;
	uint8_t *key = NULL;
	if (m->scratch_sz >= mark && m->scratch_sz - mark >= ksz) {
		key = m->scratch + mark;
		m->scratch_used = mark + ksz;
	}
	if (!key)
		return UDT_FAULT_NOSCRATCH;
	uint32_t hdr[2] = { imm & (UDT_DV_ID_MASK | UDT_DV_THREAD),
			    imm & UDT_DV_THREAD ? m->thread_key : 0 };
	memcpy(key, hdr, 8);
	uint8_t *at = key + 8;
	uint32_t fault = 0;
	for (uint32_t k = 0; k < nkeys && !fault; k++) {
		if ((imm >> (UDT_DV_STRKEYS_SHIFT + k)) & 1) {
			fault = udt__vm_str_key(ctx, d, keys[k], at, (uint32_t)sslot, bad);
			at += sslot;
		} else {
			memcpy(at, &keys[k], 8);
			at += 8;
		}
	}
	if (fault) {
		m->scratch_used = mark;
		return fault;
	}

	struct udt_dynvar *e;
	if (!store) {
		e = lookup(&s, key, (uint32_t)ksz, 0, false);
		if (!e)
			*val = 0;
		else if (strval || refval)
			*val = (uint64_t)(uintptr_t)((uint8_t *)(e + 1) + ksz);
		else
			*val = LOAD_RELAXED((uint64_t *)(void *)((uint8_t *)(e + 1) + ksz));
	} else if (!*val) {
		/* storing 0 (NULL) deletes: the one thread that marks it counts it for the cleaner */
		uint32_t live = UDT_DYN_LIVE;
		e = lookup(&s, key, (uint32_t)ksz, 0, false);
		if (e && __atomic_compare_exchange_n(&e->state, &live, UDT_DYN_DEAD, false,
						     __ATOMIC_RELAXED, __ATOMIC_RELAXED) &&
		    !__atomic_fetch_add(&s.h->dirty, 1, __ATOMIC_RELAXED) && m->wake)
			(void)syscall(SYS_futex, m->wake, FUTEX_WAKE, 1, NULL, NULL, 0);
	} else {
		uint8_t *v;
		uint8_t tmp[8];
		/* a string (bytes) is read before the element is taken: its fault leaves nothing
		   behind */
		if (strval || refval) {
			v = m->scratch + m->scratch_used;
			if (m->scratch_sz - m->scratch_used < vsz) {
				m->scratch_used = mark;
				return UDT_FAULT_NOSCRATCH;
			}
			m->scratch_used += vsz;
			fault = strval ? udt__vm_str_key(ctx, d, *val, v, (uint32_t)vsz, bad)
				: udt__vm_mem_in(m, *val, v, refsize, bad) ? UDT_FAULT_BADADDR : 0;
			if (fault) {
				m->scratch_used = mark;
				return fault;
			}
		} else {
			memcpy(tmp, val, 8);
			v = tmp;
		}
		e = lookup(&s, key, (uint32_t)ksz, (uint32_t)vsz, true);
		if (e) {
			uint8_t *dst = (uint8_t *)(e + 1) + ksz;
			if (strval || refval) {
				memcpy(dst, v, vsz);
			} else {
				uint64_t x;
				memcpy(&x, v, 8);
				STORE_RELAXED((uint64_t *)(void *)dst, x);
			}
		}
	}
	m->scratch_used = mark;
	return 0;
}

int udt__dyn_add(struct udt_dynhdr *h, uint64_t sz, const struct udt_dynvar *e)
{
	struct space s;

	if (!space_open(h, NULL, sz, &s))
		return -EINVAL;
	if (e->key_sz % 8 || sizeof(*e) + e->key_sz > s.chunk_sz || e->state != UDT_DYN_LIVE)
		return -EINVAL;
	struct udt_dynvar *n = alloc(&s);
	if (!n)
		return -ENOSPC;
	uint32_t *chain = &s.hash[e->hash >> (32 - s.bits)];
	memcpy(n, e, s.chunk_sz);
	n->next = *chain;
	*chain = index_of(&s, n);
	return 0;
}

void udt__dyn_walk(struct udt_dynhdr *h, uint64_t sz,
		   void (*fn)(const struct udt_dynvar *e, void *arg), void *arg)
{
	struct space s;

	if (!space_open(h, NULL, sz, &s))
		return;
	for (uint32_t b = 0; b < (1u << s.bits); b++) {
		uint32_t i = LOAD_ACQUIRE(&s.hash[b]);
		for (uint32_t steps = 0; i && i <= s.chunk_cnt && steps < s.chunk_cnt; steps++) {
			struct udt_dynvar *e = elem(&s, i);
			if (LOAD_ACQUIRE(&e->state) == UDT_DYN_LIVE)
				fn(e, arg);
			i = LOAD_ACQUIRE(&e->next);
		}
	}
}

uint32_t udt__dyn_unlink(struct udt_dynhdr *h, const struct udt_dynhdr *geo, uint64_t sz,
			 uint32_t *out, uint32_t max)
{
	struct space s;
	uint32_t n = 0;

	if (!space_open(h, geo, sz, &s))
		return 0;
	for (uint32_t b = 0; b < (1u << s.bits) && n < max; b++) {
		int restarts = 0;
	again:;
		uint32_t *link = &s.hash[b];
		struct udt_dynvar *prev = NULL;
		uint32_t i = LOAD_ACQUIRE(link);
		for (uint32_t steps = 0; i && i <= s.chunk_cnt && steps < s.chunk_cnt && n < max;
		     steps++) {
			struct udt_dynvar *e = elem(&s, i);
			uint32_t next = LOAD_ACQUIRE(&e->next);

			if (LOAD_ACQUIRE(&e->state) != UDT_DYN_DEAD) {
				prev = e;
				i = next;
				continue;
			}
			if (!prev) {
				/* the head: a thread may be inserting in front of it */
				uint32_t cur = i;
				if (!__atomic_compare_exchange_n(link, &cur, next, false,
								 __ATOMIC_RELEASE, __ATOMIC_RELAXED)) {
					if (++restarts > INSERT_TRIES)
						break; /* busy chain: the next round */
					goto again;
				}
			} else {
				/* only the cleaner writes the next of a linked element */
				STORE_RELEASE(&prev->next, next);
			}
			out[n++] = i;
			__atomic_fetch_sub(&h->dirty, 1, __ATOMIC_RELAXED);
			i = next;
		}
	}
	return n;
}

void udt__dyn_release(struct udt_dynhdr *h, const struct udt_dynhdr *geo, uint64_t sz,
		      const uint32_t *idx, uint32_t cnt)
{
	struct space s;

	if (!space_open(h, geo, sz, &s))
		return;
	for (uint32_t k = 0; k < cnt; k++)
		if (idx[k] && idx[k] <= s.chunk_cnt)
			free_push(&s, elem(&s, idx[k]));
}
