/* SPDX-License-Identifier: MIT */
/*
 * Aggregation data in the consumer: the totals of every aggregation,
 * snapshots of the threads' tables into them, and what printa() and the end
 * hand to the output (output.h), sorted as DTrace sorts.
 *
 * Each thread of the target has two tables (vm/agg.c) and updates the
 * one its buffer's agg_active names. A snapshot (at aggrate, before records
 * that print or change aggregations, and at the end) flips agg_active of
 * every thread, waits for threads still in the other table (agg_busy, with
 * a membarrier between, as for records: drain.c), adds that table's entries
 * to the totals here and empties it. BEGIN and END aggregate into a table of
 * ours, taken the same way. The totals are kept by variable and key, the key
 * in a canonical form (the variable, then each component: an integer cut to
 * its display size, or a string), so that the entries of different clauses
 * and threads meet; printa(), clear(), trunc() and normalize() work on them,
 * and so does the printing at exit.
 */
#include "consumer/internal.h"
#include "vm/agg.h"
#include "util/util.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>

#define LOAD_ACQUIRE(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define STORE_RELEASE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)

/* The totals: the lead's, whatever process (or dtrace itself) aggregated into them. */
struct cs_aggstate {
	struct out_aggent *v;
	size_t cnt, cap;
	uint32_t *slots;           /* index + 1 into v, open addressing */
	size_t nslots;
	uint64_t last_snap;        /* CLOCK_MONOTONIC ns */
};

/* Where the snapshots of one trace's thread tables are. */
struct cs_aggcur {
	uint32_t ntb;              /* the thread tables known: */
	uint32_t *which;           /* the table being taken from each */
	bool *pending;             /* still busy at the last snapshot: taken at the next */
};

static struct cs_aggstate *state(struct cs_trace *t)
{
	t = cs__lead(t);
	if (!t->aggst)
		t->aggst = udt__xcalloc(1, sizeof(*t->aggst));
	return t->aggst;
}

static uint64_t hash_bytes(const uint8_t *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

static uint64_t cut(uint64_t v, unsigned size)
{
	return size >= 8 ? v : v & ((1ull << (size * 8)) - 1);
}

static void combine(struct out_aggent *e, const int64_t *val, size_t vcnt)
{
	switch (e->var->func) {
	case UDT_AGG_MIN:
		if (val[0] < e->val[0])
			e->val[0] = val[0];
		break;
	case UDT_AGG_MAX:
		if (val[0] > e->val[0])
			e->val[0] = val[0];
		break;
	case UDT_AGG_STDDEV: {
		/* count and sum, and the sum of squares in 128 bits */
		unsigned __int128 a = ((unsigned __int128)(uint64_t)e->val[3] << 64) | (uint64_t)e->val[2];
		unsigned __int128 b = ((unsigned __int128)(uint64_t)val[3] << 64) | (uint64_t)val[2];
		a += b;
		e->val[0] += val[0];
		e->val[1] = (int64_t)((uint64_t)e->val[1] + (uint64_t)val[1]);
		e->val[2] = (int64_t)(uint64_t)a;
		e->val[3] = (int64_t)(uint64_t)(a >> 64);
		break;
	}
	default: /* counts and sums, bucket by bucket */
		for (size_t i = 0; i < vcnt; i++)
			e->val[i] = (int64_t)((uint64_t)e->val[i] + (uint64_t)val[i]);
		break;
	}
}

/*
 * The key of entry key (of action ag) as printed, strings copied out (a
 * string key may fill its strsize bytes with no NUL), and its canonical form:
 * the variable, then each component, for merging.
 */
static struct out_aggkv *entry_key(struct cs_trace *t, const struct cs_aggact *ag, const uint8_t *key,
			      uint8_t **ret_ck, size_t *ret_cklen)
{
	const struct out_aggvar *var = ag->var;
	struct out_aggkv *keys = udt__xcalloc(var->nkeys + 1, sizeof(*keys));
	size_t cklen = 4;

	for (size_t k = 0; k < var->nkeys; k++) {
		const struct cs_action *a = &ag->keys[k];
		if (!var->keys[k].is_str) {
			uint64_t x = (uint64_t)a->cval;
			if (a->kind != CS_ACT_TRACE_CONST)
				memcpy(&x, key + a->off, 8);
			keys[k].v = cut(x, var->keys[k].size);
			cklen += 9;
			continue;
		}
		char *str;
		if (var->keys[k].sym) {
			str = cs__stack_key_text(t, a, key); /* a stack or an address: its name */
		} else {
			const char *src = a->kind == CS_ACT_TRACE_CONST ? (a->cstr ? a->cstr : "")
									: (const char *)key + a->off;
			size_t len = a->kind == CS_ACT_TRACE_CONST ? strlen(src) : strnlen(src, a->size);
			str = udt__xmalloc(len + 1);
			memcpy(str, src, len);
			str[len] = 0;
		}
		size_t n = strlen(str);
		keys[k].s = str;
		cklen += n + 2;
	}
	uint8_t *ck = udt__xmalloc(cklen), *p = ck;
	memcpy(p, &var->id, 4);
	p += 4;
	for (size_t k = 0; k < var->nkeys; k++) {
		if (keys[k].s) {
			size_t n = strlen(keys[k].s) + 1;
			*p++ = 's';
			memcpy(p, keys[k].s, n);
			p += n;
		} else {
			*p++ = 'i';
			memcpy(p, &keys[k].v, 8);
			p += 8;
		}
	}
	*ret_ck = ck;
	*ret_cklen = (size_t)(p - ck);
	return keys;
}

static void free_keys(struct out_aggkv *keys, size_t n)
{
	for (size_t k = 0; k < n; k++)
		free((char *)keys[k].s);
	free(keys);
}


static void rehash(struct cs_aggstate *m, size_t nslots)
{
	free(m->slots);
	m->nslots = nslots;
	m->slots = udt__xcalloc(m->nslots, sizeof(*m->slots));
	for (size_t i = 0; i < m->cnt; i++) {
		size_t s = m->v[i].hash & (m->nslots - 1);
		while (m->slots[s])
			s = (s + 1) & (m->nslots - 1);
		m->slots[s] = (uint32_t)i + 1;
	}
}

static void init_value(const struct out_aggvar *var, int64_t *val, size_t vcnt)
{
	memset(val, 0, vcnt * sizeof(*val));
	if (var->func == UDT_AGG_MIN)
		val[0] = INT64_MAX;
	else if (var->func == UDT_AGG_MAX)
		val[0] = INT64_MIN;
}

/* The entry of variable var and key keys (canonically ck), made if new. */
static struct out_aggent *lookup(struct cs_aggstate *m, const struct out_aggvar *var, const uint8_t *ck,
			     size_t cklen, const struct out_aggkv *keys, size_t vcnt)
{
	uint64_t h = hash_bytes(ck, cklen);

	if (2 * (m->cnt + 1) > m->nslots)
		rehash(m, m->nslots ? m->nslots * 2 : 256);
	size_t s = h & (m->nslots - 1);
	for (; m->slots[s]; s = (s + 1) & (m->nslots - 1)) {
		struct out_aggent *e = &m->v[m->slots[s] - 1];
		if (e->hash == h && e->cklen == cklen && !memcmp(e->ck, ck, cklen))
			return e;
	}
	struct out_aggent e = { .var = var, .cklen = cklen, .hash = h, .vcnt = vcnt };
	e.ck = udt__xmalloc(cklen);
	memcpy(e.ck, ck, cklen);
	e.keys = udt__xcalloc(var->nkeys + 1, sizeof(*e.keys));
	for (size_t k = 0; k < var->nkeys; k++) {
		e.keys[k] = keys[k];
		if (keys[k].s)
			e.keys[k].s = udt__xstrdup(keys[k].s);
	}
	e.val = udt__xcalloc(vcnt, sizeof(*e.val));
	init_value(var, e.val, vcnt);
	UDT__PUSH(m->v, m->cnt, m->cap, e);
	m->slots[s] = (uint32_t)m->cnt;
	return &m->v[m->cnt - 1];
}

static void free_entry(struct out_aggent *e)
{
	free_keys(e->keys, e->var->nkeys);
	free(e->val);
	free(e->ck);
}

/* Add the entries of a table of size bytes to the totals, and empty it. */
/*
 * Add a thread's table (size bytes) to the totals and empty it. A table in
 * the shared memory is the target's to write: its layout must be the one
 * its size gives, and its entries are read from a copy. false: it is not a
 * table (said, by the caller).
 */
static bool take_table(struct cs_trace *t, uint8_t *table, uint64_t size)
{
	struct cs_aggstate *m = state(t);
	struct udt_agghdr h;
	uint64_t start;

	memcpy(&h, table, sizeof(h)); /* (once) */
	if (!h.hash_bits)
		return true; /* (never used) */
	if (h.hash_bits != udt__agg_layout(size, &start) || h.entries_off != start ||
	    h.used > size - start)
		return false;
	uint8_t *copy = udt__xmalloc(h.used + 1);
	memcpy(copy, table + start, h.used);
	for (uint64_t off = 0; off + sizeof(struct udt_aggent) <= h.used;) {
		const struct udt_aggent *e = (const void *)(copy + off);
		if (e->size < sizeof(*e) || e->size % 8 || e->size > h.used - off)
			break;
		off += e->size;
		if (!e->aggid || e->aggid > t->aggact_cnt)
			continue;
		const struct cs_aggact *ag = t->aggacts[e->aggid - 1];
		const struct out_aggvar *var = ag->var;
		uint32_t vs = udt_agg_valsize(var->func, var->lq_levels);
		if (e->size != sizeof(*e) + ag->key_size + vs || ag->nkeys != var->nkeys)
			continue;
		const uint8_t *key = (const uint8_t *)(e + 1);
		int64_t *val = udt__xcalloc(vs / 8, 8);
		memcpy(val, key + ag->key_size, vs);

		uint8_t *ck;
		size_t cklen;
		struct out_aggkv *keys = entry_key(t, ag, key, &ck, &cklen);
		combine(lookup(m, var, ck, cklen, keys, vs / 8), val, vs / 8);
		free_keys(keys, var->nkeys);
		free(ck);
		free(val);
	}
	free(copy);
	/* empty: the hash and the entries (hash_bits and the layout stay) */
	struct udt_agghdr *live = (struct udt_agghdr *)(void *)table;
	memset(live + 1, 0, (size_t)4 << h.hash_bits);
	live->used = 0;
	live->drops = 0;
	return true;
}

static void report_drops(struct cs_trace *t, const uint8_t *table, int32_t tid)
{
	uint32_t n = ((const struct udt_agghdr *)(const void *)table)->drops;

	out_drop(cs__out(t), OUT_DROP_AGG, tid, n);
}

uint64_t cs__agg_last_snap(struct cs_trace *t)
{
	return state(t)->last_snap;
}

/*
 * Flip to the other table every thread of t whose active one has entries
 * (or whose last one is still to take): true if any was. A table with none
 * stays: nothing to take, and no barrier to pay for an idle process.
 */
static bool flip(struct cs_trace *t)
{
	uint32_t n = cs__tbuf_count(t);
	bool any = false;

	if (!t->aggact_cnt || !n || !cs__agg_table(t, 0, 0))
		return false;
	struct cs_aggcur *m = t->aggcur;
	if (!m)
		m = t->aggcur = udt__xcalloc(1, sizeof(*m));
	if (n > m->ntb) {
		m->which = udt__xreallocarray(m->which, n, sizeof(*m->which));
		m->pending = udt__xreallocarray(m->pending, n, sizeof(*m->pending));
		memset(m->pending + m->ntb, 0, (n - m->ntb) * sizeof(*m->pending));
		memset(m->which + m->ntb, 0xff, (n - m->ntb) * sizeof(*m->which));
		m->ntb = n;
	}
	for (uint32_t i = 0; i < n; i++) {
		struct udt_tbuf *tb = cs__tbuf(t, i);
		if (m->pending[i]) {
			any = true;
			continue; /* its table is still the one to take */
		}
		uint32_t a = LOAD_ACQUIRE(&tb->agg_active) & 1;
		const struct udt_agghdr *h = (const void *)cs__agg_table(t, i, a);
		if (!__atomic_load_n(&h->used, __ATOMIC_RELAXED) &&
		    !__atomic_load_n(&h->drops, __ATOMIC_RELAXED)) {
			m->which[i] = UINT32_MAX; /* (nothing to take) */
			continue;
		}
		m->which[i] = a;
		STORE_RELEASE(&tb->agg_active, a ^ 1);
		any = true;
	}
	return any;
}

/* After flip() and a barrier: take the flipped tables (at the end, both of each thread). */
static void take(struct cs_trace *t, bool final)
{
	struct cs_aggcur *m = t->aggcur;
	uint32_t n = m ? m->ntb : 0;

	for (int pass = 0; pass < (final ? 2 : 1); pass++) {
		for (uint32_t i = 0; i < n; i++) {
			struct udt_tbuf *tb = cs__tbuf(t, i);
			uint32_t w = m->which[i] == UINT32_MAX ? LOAD_ACQUIRE(&tb->agg_active) ^ 1
							       : m->which[i];
			if (m->which[i] == UINT32_MAX && !final)
				continue;
			uint32_t h = (w ^ (uint32_t)pass) & 1;
			/* at the end, a thread that never leaves (a dead one) is waited for once */
			bool out = cs__wait_not_busy(&tb->agg_busy, h) || final;
			m->pending[i] = !out;
			if (!out)
				continue;
			uint8_t *table = cs__agg_table(t, i, h);
			if (!table)
				return; /* (the memory was found corrupted) */
			report_drops(t, table, tb->tid);
			if (!take_table(t, table, t->sh.aggsize))
				cs__shm_corrupt(t, "the aggregation table of thread %d", (int)tb->tid);
		}
	}
}

void cs__agg_snap_one(struct cs_trace *t, bool final)
{
	if (!t->aggact_cnt)
		return;
	if (flip(t) || final)
		cs__barrier_all(t);
	take(t, final);
}

void cs__agg_snap(struct cs_trace *t, bool final)
{
	struct cs_trace *lead = cs__lead(t);
	struct cs_aggstate *m = state(lead);
	struct cs_trace *const *mem;
	size_t nmem = cs__group_members(lead, &mem);
	bool any = false, expedited = true;

	if (!lead->aggact_cnt && !lead->aggvar_cnt)
		return;
	m->last_snap = udt__now_ns();
	if (lead->agg_local)
		(void)take_table(lead, lead->agg_local, lead->o.aggsize); /* (ours) */
	/* every process's threads flip, then one barrier for all of them, then each is taken */
	for (size_t i = 0; i <= nmem; i++) {
		struct cs_trace *x = i < nmem ? mem[i] : lead;
		if (x->gone || !flip(x))
			continue;
		any = true;
		expedited &= cs__shm_expedited(x);
	}
	if (any || final)
		cs__barrier(expedited && any);
	for (size_t i = 0; i <= nmem; i++) {
		struct cs_trace *x = i < nmem ? mem[i] : lead;
		if (!x->gone)
			take(x, final);
	}
}

void cs__agg_take_thread(struct cs_trace *t, uint32_t i)
{
	struct cs_aggcur *m = t->aggcur;
	struct udt_tbuf *tb = cs__tbuf(t, i);

	if (!t->aggact_cnt)
		return;
	for (uint32_t h = 0; h < 2; h++) {
		uint8_t *table = cs__agg_table(t, i, h);
		if (!table)
			return; /* (the memory was found corrupted) */
		report_drops(t, table, tb->tid);
		if (!take_table(t, table, t->sh.aggsize))
			cs__shm_corrupt(t, "the aggregation table of thread %d", (int)tb->tid);
	}
	if (m && i < m->ntb)
		m->pending[i] = false;
	__atomic_store_n(&tb->agg_active, 0, __ATOMIC_RELAXED);
}

/* -- Sorting, as dt_aggregate.c sorts: variable, value, key ---------------------------------------- */

/* The sorting options: aggsortkey, aggsortkeypos, aggsortrev. */
struct sortopts {
	bool bykey;
	unsigned keypos;           /* the key component compared first */
	bool rev;
};

/* As dt_aggregate.c sorts: variable, then value and key (or key and value), reversed with rev. */
static int entcmp(const void *pa, const void *pb, void *arg)
{
	const struct out_aggent *x = *(const struct out_aggent *const *)pa;
	const struct out_aggent *y = *(const struct out_aggent *const *)pb;
	const struct sortopts *so = arg;
	int r = x->var->id < y->var->id ? -1 : x->var->id > y->var->id;

	if (!r && so->bykey)
		r = out_agg_keycmp(x, y, so->keypos);
	if (!r)
		r = out_agg_valcmp(x, y);
	if (!r && !so->bykey)
		r = out_agg_keycmp(x, y, so->keypos);
	return so->rev ? -r : r;
}

/*
 * The entries of var (all variables when NULL), sorted as the options say
 * (by value when by_value); *ret_n of them.
 */
static struct out_aggent **sorted(struct cs_trace *t, const struct out_aggvar *var, bool by_value,
				 size_t *ret_n)
{
	struct sortopts so = { 0 };
	if (!by_value)
		so = (struct sortopts){ .bykey = t->o.aggsortkey, .keypos = t->o.aggsortkeypos,
					.rev = t->o.aggsortrev };
	struct cs_aggstate *m = state(t);
	struct out_aggent **v = udt__xcalloc(m->cnt + 1, sizeof(*v));
	size_t n = 0;

	for (size_t i = 0; i < m->cnt; i++)
		if (!var || m->v[i].var == var)
			v[n++] = &m->v[i];
	if (n > 1)
		qsort_r(v, n, sizeof(*v), entcmp, &so);
	*ret_n = n;
	return v;
}

void cs__agg_print_all(struct cs_trace *t)
{
	size_t n;
	struct out_aggent **v = sorted(t, NULL, false, &n);

	/* (sorted by variable first: each one's entries are together) */
	for (size_t i = 0; i < n;) {
		struct out_aggvar *var = (struct out_aggvar *)v[i]->var;
		size_t j = i + 1;
		while (j < n && v[j]->var == var)
			j++;
		if (!var->printed) {
			struct out_aggprint ap = { .vars = &var, .nvars = 1,
						   .ents = (const struct out_aggent *const *)v + i,
						   .nrows = j - i, .at_exit = true,
						   .namer = cs__namer(t) };
			out_agg(cs__out(t), &ap);
		}
		i = j;
	}
	free(v);
}

void cs__agg_printa(struct cs_trace *t, struct out_aggvar *var, const struct out_printf *fmt)
{
	size_t n;
	struct out_aggent **v = sorted(t, var, false, &n);
	struct out_aggprint ap = { .vars = &var, .nvars = 1, .fmt = fmt,
				   .ents = (const struct out_aggent *const *)v, .nrows = n,
				   .namer = cs__namer(t) };

	var->printed = true;
	out_agg(cs__out(t), &ap);
	free(v);
}

/* -- printa() of several aggregations --------------------------------------------------- */

/*
 * A row of a joined printa(): one key, and the entry of each aggregation
 * for it (a zero-valued one, made here, for an aggregation without it).
 */
struct row {
	size_t n;
	struct out_aggent *ent[];      /* [n] */
};

struct joinsort {
	struct sortopts so;
	size_t n;                  /* aggregations */
	size_t first;              /* the one compared first (aggsortpos) */
};

/* As dt_aggregate_bundlecmp(): values from aggsortpos on, then the key (or the key first). */
static int rowcmp(const void *pa, const void *pb, void *arg)
{
	const struct row *x = *(const struct row *const *)pa, *y = *(const struct row *const *)pb;
	const struct joinsort *js = arg;
	int r = 0;

	if (js->so.bykey)
		r = out_agg_keycmp(x->ent[0], y->ent[0], js->so.keypos);
	for (size_t i = 0; i < js->n && !r; i++) {
		size_t j = (js->first + i) % js->n;
		r = out_agg_valcmp(x->ent[j], y->ent[j]);
	}
	if (!r && !js->so.bykey)
		r = out_agg_keycmp(x->ent[0], y->ent[0], js->so.keypos);
	return js->so.rev ? -r : r;
}

void cs__agg_printa_joined(struct cs_trace *t, struct out_aggvar *const *vars, size_t n,
			   const struct out_printf *fmt)
{
	struct cs_aggstate *m = state(t);
	struct row **rows = NULL;
	size_t nrows = 0, cap = 0;

	/* the rows: the keys any of them has, matched by the key's bytes (after the variable) */
	for (size_t i = 0; i < m->cnt; i++) {
		struct out_aggent *e = &m->v[i];
		size_t j = 0, r;
		while (j < n && e->var != vars[j])
			j++;
		if (j == n)
			continue;
		for (r = 0; r < nrows; r++) {
			const struct out_aggent *k = NULL;
			for (size_t q = 0; q < n && !k; q++)
				k = rows[r]->ent[q];
			if (k->cklen == e->cklen && !memcmp(k->ck + 4, e->ck + 4, e->cklen - 4))
				break;
		}
		if (r == nrows) {
			struct row *nr = udt__xcalloc(1, sizeof(*nr) + n * sizeof(nr->ent[0]));
			nr->n = n;
			UDT__PUSH(rows, nrows, cap, nr);
		}
		for (; j < n; j++) /* (an aggregation named twice is a column each time) */
			if (e->var == vars[j])
				rows[r]->ent[j] = e;
	}
	/* and a zero-valued entry where an aggregation has none, as DTrace prints them */
	struct out_aggent *zeros = udt__xcalloc(nrows * n + 1, sizeof(*zeros));
	for (size_t r = 0; r < nrows; r++) {
		const struct out_aggent *k = NULL;
		for (size_t q = 0; q < n && !k; q++)
			k = rows[r]->ent[q];
		for (size_t j = 0; j < n; j++) {
			if (rows[r]->ent[j])
				continue;
			struct out_aggent *z = &zeros[r * n + j];
			z->var = vars[j];
			z->keys = k->keys;
			z->vcnt = udt_agg_valsize(vars[j]->func, vars[j]->lq_levels) / 8;
			z->val = udt__xcalloc(z->vcnt + 1, sizeof(*z->val));
			rows[r]->ent[j] = z;
		}
	}
	struct joinsort js = {
		.so = { .bykey = t->o.aggsortkey, .keypos = t->o.aggsortkeypos,
			.rev = t->o.aggsortrev },
		.n = n,
		.first = t->o.aggsortpos < n ? t->o.aggsortpos : 0,
	};
	if (nrows > 1)
		qsort_r(rows, nrows, sizeof(*rows), rowcmp, &js);
	const struct out_aggent **ents = udt__xcalloc(nrows * n + 1, sizeof(*ents));
	for (size_t r = 0; r < nrows; r++)
		memcpy(ents + r * n, rows[r]->ent, n * sizeof(*ents));
	struct out_aggprint ap = { .vars = vars, .nvars = n, .fmt = fmt, .ents = ents,
				   .nrows = nrows, .namer = cs__namer(t) };
	out_agg(cs__out(t), &ap);
	free(ents);
	for (size_t j = 0; j < n; j++)
		vars[j]->printed = true;
	for (size_t i = 0; i < nrows * n; i++)
		free(zeros[i].val);
	free(zeros);
	for (size_t r = 0; r < nrows; r++)
		free(rows[r]);
	free(rows);
}

/*
 * clear(): every value of var zeroed, its keys kept. As in DTrace, a min()
 * or max() is zeroed too, and later values are compared with that 0.
 */
void cs__agg_clear(struct cs_trace *t, const struct out_aggvar *var)
{
	struct cs_aggstate *m = state(t);

	for (size_t i = 0; i < m->cnt; i++)
		if (m->v[i].var == var)
			memset(m->v[i].val, 0, m->v[i].vcnt * sizeof(*m->v[i].val));
}

void cs__agg_trunc(struct cs_trace *t, const struct out_aggvar *var, bool all, int64_t keep)
{
	struct cs_aggstate *m = state(t);
	size_t n;
	struct out_aggent **v = sorted(t, var, true, &n);
	uint64_t want = all ? 0 : keep < 0 ? (uint64_t)0 - (uint64_t)keep : (uint64_t)keep;
	bool *drop = udt__xcalloc(m->cnt + 1, sizeof(*drop));

	/* the largest values are kept (the smallest with a negative count), as DTrace */
	for (size_t i = 0; i < n; i++) {
		size_t rank = keep < 0 ? i : n - 1 - i;
		if (rank >= want)
			drop[v[i] - m->v] = true;
	}
	free(v);
	size_t w = 0;
	for (size_t i = 0; i < m->cnt; i++) {
		if (drop[i])
			free_entry(&m->v[i]);
		else
			m->v[w++] = m->v[i];
	}
	m->cnt = w;
	free(drop);
	if (m->nslots)
		rehash(m, m->nslots);
}

void cs__agg_free_data(struct cs_trace *t)
{
	struct cs_aggstate *m = t->aggst;

	if (!m)
		return;
	for (size_t i = 0; i < m->cnt; i++)
		free_entry(&m->v[i]);
	free(m->v);
	free(m->slots);
	free(m);
	t->aggst = NULL;
}

void cs__agg_cur_free(struct cs_trace *t)
{
	if (!t->aggcur)
		return;
	free(t->aggcur->which);
	free(t->aggcur->pending);
	free(t->aggcur);
	t->aggcur = NULL;
}
