/* SPDX-License-Identifier: MIT */
/*
 * Aggregations: compiling `@name[keys] = func(args)`, and merging and
 * printing what the threads aggregated.
 *
 * Every aggregating action of every ECB is its own aggregation for the
 * runtime (its aggid), whose key holds only the components that are not
 * constants for that probe: `@[probefunc] = count()` has an empty key, and
 * the function's name is ours to fill in. Each thread of the target keeps a
 * table of its own in the shared memory (runtime/agg.c); BEGIN and END
 * aggregate into a table here with the same code. At exit we read every
 * table, merge entries of the same variable and key, sort them as DTrace
 * does (by variable, then value, then key, integers unsigned) and print them
 * as dtrace(1) prints them.
 */
#include "consumer/internal.h"
#include "runtime/agg.h"
#include "util/util.h"

#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#define LOAD_ACQUIRE(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)

/* The aggregating functions: name, runtime function, arguments (at least, at most). */
static const struct aggfunc {
	const char *name;
	enum udt_agg_func func;
	unsigned min_args, max_args;
} aggfuncs[] = {
	{ "count", UDT_AGG_COUNT, 0, 0 },
	{ "sum", UDT_AGG_SUM, 1, 1 },
	{ "avg", UDT_AGG_AVG, 1, 1 },
	{ "min", UDT_AGG_MIN, 1, 1 },
	{ "max", UDT_AGG_MAX, 1, 1 },
	{ "quantize", UDT_AGG_QUANTIZE, 1, 1 },
	{ "lquantize", UDT_AGG_LQUANTIZE, 3, 4 },
};

static const struct aggfunc *find_func(const char *name)
{
	for (size_t i = 0; i < UDT__ARRAY_SIZE(aggfuncs); i++)
		if (!strcmp(aggfuncs[i].name, name))
			return &aggfuncs[i];
	return NULL;
}

static bool is_agg_assign(const struct dl_node *x)
{
	return x && x->kind == DL_N_BINARY && x->op == '=' &&
	       (x->a->kind == DL_N_AGG || (x->a->kind == DL_N_INDEX && x->a->a->kind == DL_N_AGG));
}

static const struct dl_node *agg_node(const struct dl_node *x)
{
	return x->a->kind == DL_N_INDEX ? x->a->a : x->a;
}

static struct cs_aggvar *find_var(struct cs_trace *t, const char *name)
{
	for (size_t i = 0; i < t->aggvar_cnt; i++)
		if (!strcmp(t->aggvars[i]->name, name))
			return t->aggvars[i];
	return NULL;
}

/* -- Compiling --------------------------------------------------------------------------- */

static int declare(struct cs_trace *t, const struct dl_node *x, char **ret_err)
{
	const char *name = agg_node(x)->name;
	const struct dl_node *rhs = x->b;
	const struct aggfunc *f = NULL;

	if (rhs->kind == DL_N_CALL && rhs->a->kind == DL_N_IDENT)
		f = find_func(rhs->a->name);
	if (!f) {
		*ret_err = cs__at_err(x, udt__xasprintf("@%s must be assigned the result of an "
							"aggregating function", name));
		return -1;
	}
	struct cs_aggvar *v = find_var(t, name);
	if (!v) {
		v = udt__xcalloc(1, sizeof(*v));
		v->name = name;
		v->id = (uint32_t)t->aggvar_cnt + 1;
		v->fname = f->name;
		v->func = f->func;
		v->line = x->loc.line;
		UDT__PUSH(t->aggvars, t->aggvar_cnt, t->aggvar_cap, v);
	} else if (v->func != f->func) {
		*ret_err = cs__at_err(x, udt__xasprintf("aggregation redefined: @%s\n\t current: "
							"@%s = %s( )\n\tprevious: @%s = %s( ) : "
							"line %d", name, name, f->name, name,
							v->fname, v->line));
		return -1;
	}
	return 0;
}

static int declare_stmts(struct cs_trace *t, struct dl_stmt *const *stmts, size_t n,
			 char **ret_err)
{
	for (size_t i = 0; i < n; i++) {
		const struct dl_stmt *s = stmts[i];

		if (!s)
			continue;
		if (s->kind == DL_S_EXPR && is_agg_assign(s->expr) && declare(t, s->expr, ret_err))
			return -1;
		if ((s->kind == DL_S_BLOCK || s->kind == DL_S_IF) &&
		    declare_stmts(t, s->body, s->body_cnt, ret_err))
			return -1;
	}
	return 0;
}

int cs__agg_declare(struct cs_trace *t, char **ret_err)
{
	size_t n;
	struct dl_clause *const *cls = dl_program_clauses(t->prog, &n);

	for (size_t i = 0; i < n; i++)
		if (declare_stmts(t, cls[i]->stmts, cls[i]->stmt_cnt, ret_err))
			return -1;
	return 0;
}

static const char *plural(size_t n)
{
	return n == 1 ? "" : "s";
}

/* An integer constant argument of lquantize(); -1 with a message when it is not one. */
static int const_arg(struct cs_trace *t, const struct dl_node *call, size_t i,
		     const struct dl_probe_ctx *ctx, int64_t *ret, char **ret_err)
{
	struct cs_action a = { 0 };

	if (cs__compile_expr(t, call->args[i], call, ctx, &a, ret_err))
		return -1;
	bool ok = a.kind == CS_ACT_TRACE_CONST && !a.is_str;
	*ret = a.cval;
	dl_difo_free(&a.difo);
	if (!ok) {
		*ret_err = cs__at_err(call->args[i], udt__xasprintf("lquantize( ) argument #%zu "
								    "must be an integer constant",
								    i + 1));
		return -1;
	}
	return 0;
}

/* lquantize(value, base, limit[, step]): the constants, checked as DTrace checks them. */
static int lquantize_args(struct cs_trace *t, struct cs_aggvar *v, const struct dl_node *call,
			  const struct dl_probe_ctx *ctx, char **ret_err)
{
	int64_t base, limit, step = 1;

	if (const_arg(t, call, 1, ctx, &base, ret_err) || const_arg(t, call, 2, ctx, &limit, ret_err) ||
	    (call->arg_cnt > 3 && const_arg(t, call, 3, ctx, &step, ret_err)))
		return -1;
	const char *msg = NULL;
	if (base < INT32_MIN || base > INT32_MAX)
		msg = "lquantize( ) argument #2 must be a 32-bit quantity";
	else if (limit < INT32_MIN || limit > INT32_MAX)
		msg = "lquantize( ) argument #3 must be a 32-bit quantity";
	else if (limit <= base)
		msg = "lquantize( ) argument #3 must be greater than argument #2";
	else if (step <= 0 || step > UINT16_MAX)
		msg = "lquantize( ) argument #4 must be a non-zero positive 16-bit quantity";
	else if (step > limit - base)
		msg = "lquantize( ) argument #4 (step) must be less than the difference between "
		      "arguments #2 and #3";
	else if ((limit - base) / step > UINT16_MAX)
		msg = "lquantize( ) argument #4 (step) is too small: too many levels";
	if (msg) {
		*ret_err = cs__at_err(call, udt__xstrdup(msg));
		return -1;
	}
	uint32_t levels = (uint32_t)((limit - base) / step);
	if (!v->lq_known) {
		v->lq_base = base;
		v->lq_step = (uint32_t)step;
		v->lq_levels = levels;
		v->lq_known = true;
		return 0;
	}
	int64_t old_limit = v->lq_base + (int64_t)v->lq_levels * v->lq_step;
	if (base != v->lq_base)
		msg = udt__xasprintf("lquantize( ) base (argument #2) doesn't match previous "
				     "declaration: expected %lld, found %lld",
				     (long long)v->lq_base, (long long)base);
	else if (base + (int64_t)levels * step != old_limit)
		msg = udt__xasprintf("lquantize( ) limit (argument #3) doesn't match previous "
				     "declaration: expected %lld, found %lld",
				     (long long)old_limit, (long long)limit);
	else if ((uint32_t)step != v->lq_step)
		msg = udt__xasprintf("lquantize( ) step (argument #4) doesn't match previous "
				     "declaration: expected %u, found %lld", v->lq_step,
				     (long long)step);
	if (msg) {
		*ret_err = cs__at_err(call, (char *)msg);
		return -1;
	}
	return 0;
}

static const char *key_type_name(const struct cs_aggkey *k)
{
	if (k->is_str)
		return "string";
	return k->size == 8 ? "int64_t" : k->size == 4 ? "int" : k->size == 2 ? "short" : "char";
}

/* The keys of aggregating assignment x, checked against the variable's prototype. */
static int compile_keys(struct cs_trace *t, struct cs_aggact *ag, const struct dl_node *x,
			const struct dl_probe_ctx *ctx, char **ret_err)
{
	struct cs_aggvar *v = ag->var;
	const struct dl_node *ix = x->a->kind == DL_N_INDEX ? x->a : NULL;
	size_t n = ix ? ix->arg_cnt : 0;
	struct cs_aggkey *proto = udt__xcalloc(n + 1, sizeof(*proto));

	ag->keys = udt__xcalloc(n + 1, sizeof(*ag->keys));
	for (size_t k = 0; k < n; k++) {
		struct cs_action *a = &ag->keys[k];

		if (cs__compile_expr(t, ix->args[k], ix, ctx, a, ret_err))
			goto fail;
		ag->nkeys++;
		a->from_hdr = false; /* a key is built whole in the target */
		proto[k].is_str = a->kind == CS_ACT_TRACE_STR || a->is_str;
		proto[k].size = proto[k].is_str ? 0 : a->size;
		cs__place(a, &ag->key_size);
	}
	if (ag->key_size > UDT_AGG_KEY_MAX) {
		*ret_err = cs__at_err(ix, udt__xasprintf("the key of @%s takes %u bytes, more than "
							 "the %d an aggregation's key may: lower "
							 "strsize", v->name, ag->key_size,
							 UDT_AGG_KEY_MAX));
		goto fail;
	}
	if (!v->keys_known) {
		v->keys = proto;
		v->nkeys = n;
		v->keys_known = true;
		return 0;
	}
	if (n != v->nkeys) {
		*ret_err = cs__at_err(x->a, udt__xasprintf("@%s[ ] prototype mismatch: %zu arg%s "
							   "passed, %zu expected", v->name, n,
							   plural(n), v->nkeys));
		goto fail;
	}
	for (size_t k = 0; k < n; k++) {
		if (proto[k].is_str == v->keys[k].is_str)
			continue;
		*ret_err = cs__at_err(ix->args[k],
				      udt__xasprintf("@%s[ ] argument #%zu is incompatible with "
						     "prototype:\n\tprototype: %s\n\t argument: %s",
						     v->name, k + 1, key_type_name(&v->keys[k]),
						     key_type_name(&proto[k])));
		goto fail;
	}
	free(proto);
	return 0;
fail:
	free(proto);
	return -1;
}

int cs__agg_compile(struct cs_trace *t, struct cs_ecb *e, const struct dl_node *x,
		    const struct dl_probe_ctx *ctx, char **ret_err)
{
	struct cs_aggvar *v = find_var(t, agg_node(x)->name);
	const struct dl_node *call = x->b;
	const struct aggfunc *f = find_func(call->a->name);
	struct cs_aggact *ag = udt__xcalloc(1, sizeof(*ag));

	/* owned by t from here, freed with it whatever happens */
	ag->var = v;
	ag->aggid = (uint32_t)t->aggact_cnt + 1;
	UDT__PUSH(t->aggacts, t->aggact_cnt, t->aggact_cap, ag);
	if (call->arg_cnt < f->min_args || call->arg_cnt > f->max_args) {
		*ret_err = cs__at_err(call, udt__xasprintf("%s( ) prototype mismatch: %zu arg%s "
							   "passed, %s%u expected", f->name,
							   call->arg_cnt, plural(call->arg_cnt),
							   f->min_args == f->max_args ? ""
							   : call->arg_cnt < f->min_args ? "at least "
							   : "at most ",
							   call->arg_cnt < f->min_args ? f->min_args
							   : f->max_args));
		return -1;
	}
	if (compile_keys(t, ag, x, ctx, ret_err))
		return -1;
	if (f->min_args) {
		if (cs__compile_expr(t, call->args[0], call, ctx, &ag->val, ret_err))
			return -1;
		ag->has_val = true;
		ag->val.from_hdr = false;
		if (ag->val.kind == CS_ACT_TRACE_STR || ag->val.is_str ||
		    dl_type_argclass(ag->val.difo.type) != DL_ARG_INT) {
			*ret_err = cs__at_err(call->args[0],
					      udt__xasprintf("%s( ) argument #1 is incompatible "
							     "with prototype:\n\tprototype: "
							     "integer\n\t argument: %s", f->name,
							     ag->val.kind == CS_ACT_TRACE_STR ||
							     ag->val.is_str ? "string"
							     : dl_type_cdecl(t->prog,
									     ag->val.difo.type,
									     NULL)));
			return -1;
		}
	}
	if (f->func == UDT_AGG_LQUANTIZE && lquantize_args(t, v, call, ctx, ret_err))
		return -1;
	struct cs_action a = { .kind = CS_ACT_AGG, .agg = ag };
	UDT__PUSH(e->acts, e->act_cnt, e->act_cap, a);
	return 0;
}

void cs__agg_free(struct cs_trace *t)
{
	for (size_t i = 0; i < t->aggact_cnt; i++) {
		struct cs_aggact *ag = t->aggacts[i];
		for (size_t k = 0; k < ag->nkeys; k++)
			dl_difo_free(&ag->keys[k].difo);
		free(ag->keys);
		dl_difo_free(&ag->val.difo);
		free(ag);
	}
	free(t->aggacts);
	for (size_t i = 0; i < t->aggvar_cnt; i++) {
		free(t->aggvars[i]->keys);
		free(t->aggvars[i]);
	}
	free(t->aggvars);
	free(t->agg_local);
	free(t->agg_drops);
	free(t->local_tvars);
}

/* -- BEGIN and END --------------------------------------------------------------------- */

static int local_value(const struct cs_action *a, struct udt_vm_ctx *vm, uint64_t *v)
{
	if (a->difo.is_const) {
		*v = (uint64_t)a->difo.const_val;
		return 0;
	}
	return udt_difo_run((const void *)a->difo.bytes, vm, v);
}

int cs__agg_local(struct cs_trace *t, const struct cs_aggact *ag, struct udt_vm_ctx *vm)
{
	const struct cs_aggvar *v = ag->var;
	struct udt_aggdesc ad = { .aggid = ag->aggid, .func = v->func, .key_size = ag->key_size,
				  .lq_base = v->lq_base, .lq_step = v->lq_step,
				  .lq_levels = v->lq_levels };
	uint64_t x = 0;

	if (!t->agg_local)
		t->agg_local = udt__xcalloc(1, t->o.aggsize);
	uint8_t *key = udt__agg_scratch(t->agg_local, t->o.aggsize);
	if (!key)
		return 0;
	memset(key, 0, ag->key_size);
	for (size_t k = 0; k < ag->nkeys; k++) {
		const struct cs_action *a = &ag->keys[k];
		/* (no process here: a string copied in is empty) */
		if (a->kind == CS_ACT_TRACE_CONST || a->kind == CS_ACT_TRACE_STR)
			continue;
		if (local_value(a, vm, &x))
			return -1;
		memcpy(key + a->off, &x, 8);
	}
	x = 0;
	if (ag->has_val && local_value(&ag->val, vm, &x))
		return -1;
	udt__agg_update(t->agg_local, t->o.aggsize, &ad, key, (int64_t)x);
	return 0;
}

/* -- Merging ------------------------------------------------------------------------------ */

/* A key component, merged: an integer (cut to its display size) or a string. */
struct kval {
	uint64_t v;
	const char *s;
};

struct merged {
	const struct cs_aggvar *var;
	struct kval *keys;
	int64_t *val;
	uint8_t *ck;               /* the canonical key: variable, then each component */
	size_t cklen;
	uint64_t hash;
};

struct mstate {
	struct merged *v;
	size_t cnt, cap;
	uint32_t *slots;           /* index + 1 into v, open addressing */
	size_t nslots;
};

static uint64_t hash_bytes(const uint8_t *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

static void rehash(struct mstate *m)
{
	free(m->slots);
	m->nslots = m->nslots ? m->nslots * 2 : 256;
	m->slots = udt__xcalloc(m->nslots, sizeof(*m->slots));
	for (size_t i = 0; i < m->cnt; i++) {
		size_t s = m->v[i].hash & (m->nslots - 1);
		while (m->slots[s])
			s = (s + 1) & (m->nslots - 1);
		m->slots[s] = (uint32_t)i + 1;
	}
}

static uint64_t cut(uint64_t v, unsigned size)
{
	return size >= 8 ? v : v & ((1ull << (size * 8)) - 1);
}

/* The merged entry of variable var and key keys (built from ck), made if new. */
static struct merged *lookup(struct mstate *m, const struct cs_aggvar *var, const uint8_t *ck,
			     size_t cklen, const struct kval *keys, size_t vcnt)
{
	uint64_t h = hash_bytes(ck, cklen);

	if (2 * (m->cnt + 1) > m->nslots)
		rehash(m);
	size_t s = h & (m->nslots - 1);
	for (; m->slots[s]; s = (s + 1) & (m->nslots - 1)) {
		struct merged *e = &m->v[m->slots[s] - 1];
		if (e->hash == h && e->cklen == cklen && !memcmp(e->ck, ck, cklen))
			return e;
	}
	struct merged e = { .var = var, .cklen = cklen, .hash = h };
	e.ck = udt__xmalloc(cklen);
	memcpy(e.ck, ck, cklen);
	e.keys = udt__xcalloc(var->nkeys + 1, sizeof(*e.keys));
	for (size_t k = 0; k < var->nkeys; k++) {
		e.keys[k] = keys[k];
		if (keys[k].s)
			e.keys[k].s = udt__xstrdup(keys[k].s);
	}
	e.val = udt__xcalloc(vcnt, sizeof(*e.val));
	if (var->func == UDT_AGG_MIN)
		e.val[0] = INT64_MAX;
	else if (var->func == UDT_AGG_MAX)
		e.val[0] = INT64_MIN;
	UDT__PUSH(m->v, m->cnt, m->cap, e);
	m->slots[s] = (uint32_t)m->cnt;
	return &m->v[m->cnt - 1];
}

static void combine(struct merged *e, const int64_t *val, size_t vcnt)
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
	default: /* counts and sums, bucket by bucket */
		for (size_t i = 0; i < vcnt; i++)
			e->val[i] = (int64_t)((uint64_t)e->val[i] + (uint64_t)val[i]);
		break;
	}
}

/* Copy an entry's value, consistent under its seq (the thread may be updating it). */
static void read_value(const struct udt_aggent *e, const uint8_t *src, int64_t *dst, size_t vs)
{
	for (int tries = 0; tries < 1000; tries++) {
		uint32_t s1 = LOAD_ACQUIRE(&e->seq);
		if (s1 & 1) {
			if (tries > 10)
				sched_yield();
			continue;
		}
		memcpy(dst, src, vs);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&e->seq, __ATOMIC_RELAXED) == s1)
			return;
	}
	memcpy(dst, src, vs); /* a thread stopped mid-update: as good as it gets */
}

/*
 * The key of entry key (of action ag) as printed, strings copied out (a
 * string key may fill its strsize bytes with no NUL), and its canonical form:
 * the variable, then each component, for merging.
 */
static struct kval *entry_key(const struct cs_aggact *ag, const uint8_t *key, uint8_t **ret_ck,
			      size_t *ret_cklen)
{
	const struct cs_aggvar *var = ag->var;
	struct kval *keys = udt__xcalloc(var->nkeys + 1, sizeof(*keys));
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
		const char *src = a->kind == CS_ACT_TRACE_CONST ? (a->cstr ? a->cstr : "")
								: (const char *)key + a->off;
		size_t n = a->kind == CS_ACT_TRACE_CONST ? strlen(src) : strnlen(src, a->size);
		char *str = udt__xmalloc(n + 1);
		memcpy(str, src, n);
		str[n] = 0;
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

static void free_keys(struct kval *keys, size_t n)
{
	for (size_t k = 0; k < n; k++)
		free((char *)keys[k].s);
	free(keys);
}

/* Merge the entries of one table of size bytes. */
static void merge_table(struct cs_trace *t, struct mstate *m, const uint8_t *table, uint64_t size)
{
	const struct udt_agghdr *h = (const void *)table;
	uint32_t bits = LOAD_ACQUIRE(&h->hash_bits);

	if (!bits)
		return;
	uint64_t used = LOAD_ACQUIRE(&h->used), start = h->entries_off;
	if (bits > 20 || start >= size || used > size - start)
		return;
	int64_t *val = NULL;
	for (uint64_t off = start; off + sizeof(struct udt_aggent) <= start + used;) {
		const struct udt_aggent *e = (const void *)(table + off);
		if (e->size < sizeof(*e) || e->size % 8 || e->size > start + used - off)
			break;
		off += e->size;
		if (!e->aggid || e->aggid > t->aggact_cnt)
			continue;
		const struct cs_aggact *ag = t->aggacts[e->aggid - 1];
		const struct cs_aggvar *var = ag->var;
		uint32_t vs = udt_agg_valsize(var->func, var->lq_levels);
		if (e->size != sizeof(*e) + ag->key_size + vs || ag->nkeys != var->nkeys)
			continue;
		const uint8_t *key = (const uint8_t *)(e + 1);
		val = udt__xreallocarray(val, vs / 8, 8);
		read_value(e, key + ag->key_size, val, vs);

		uint8_t *ck;
		size_t cklen;
		struct kval *keys = entry_key(ag, key, &ck, &cklen);
		combine(lookup(m, var, ck, cklen, keys, vs / 8), val, vs / 8);
		free_keys(keys, var->nkeys);
		free(ck);
	}
	free(val);
}

/* -- Sorting, as dt_aggregate.c sorts: variable, value, key ---------------------------------------- */

static long double quantized_sum(const int64_t *b)
{
	long double total = 0;

	for (int i = 0; i < UDT_QUANTIZE_NBUCKETS; i++) {
		long double bv = i < UDT_QUANTIZE_ZEROBUCKET ? -(long double)(1ull << (62 - i))
				 : i == UDT_QUANTIZE_ZEROBUCKET ? 0
								: (long double)(1ull << (i - 64));
		total += bv * (long double)b[i];
	}
	return total;
}

static long double lquantized_sum(const struct cs_aggvar *v, const int64_t *b)
{
	int64_t base = v->lq_base;
	long double total = (long double)b[0] * (long double)(base - 1);

	for (uint32_t i = 0; i < v->lq_levels; base += v->lq_step, i++)
		total += (long double)b[i + 1] * (long double)base;
	return total + (long double)b[v->lq_levels + 1] * (long double)(base + 1);
}

static int64_t lquantized_zero(const struct cs_aggvar *v, const int64_t *b)
{
	int64_t base = v->lq_base;

	if (base - 1 == 0)
		return b[0];
	for (uint32_t i = 0; i < v->lq_levels; base += v->lq_step, i++)
		if (base == 0)
			return b[i + 1];
	return base + 1 == 0 ? b[v->lq_levels + 1] : 0;
}

#define CMP(a, b) ((a) < (b) ? -1 : (a) > (b))

static int valcmp(const struct merged *x, const struct merged *y)
{
	const int64_t *a = x->val, *b = y->val;
	const struct cs_aggvar *v = x->var;

	switch (v->func) {
	case UDT_AGG_AVG: {
		int64_t aa = a[0] ? a[1] / a[0] : 0, ba = b[0] ? b[1] / b[0] : 0;
		return CMP(aa, ba);
	}
	case UDT_AGG_QUANTIZE: {
		long double as = quantized_sum(a), bs = quantized_sum(b);
		if (as != bs)
			return CMP(as, bs);
		return CMP(a[UDT_QUANTIZE_ZEROBUCKET], b[UDT_QUANTIZE_ZEROBUCKET]);
	}
	case UDT_AGG_LQUANTIZE: {
		long double as = lquantized_sum(v, a), bs = lquantized_sum(v, b);
		if (as != bs)
			return CMP(as, bs);
		return CMP(lquantized_zero(v, a), lquantized_zero(v, b));
	}
	default:
		return CMP(a[0], b[0]);
	}
}

static int keycmp(const struct merged *x, const struct merged *y)
{
	for (size_t k = 0; k < x->var->nkeys; k++) {
		int r = x->keys[k].s ? strcmp(x->keys[k].s, y->keys[k].s)
				     : CMP(x->keys[k].v, y->keys[k].v);
		if (r)
			return r;
	}
	return 0;
}

static int entcmp(const void *pa, const void *pb)
{
	const struct merged *x = pa, *y = pb;
	int r = CMP(x->var->id, y->var->id);

	if (!r)
		r = valcmp(x, y);
	return r ? r : keycmp(x, y);
}

/* -- Printing, as dt_consume.c prints ------------------------------------------------------- */

static void print_key(FILE *out, const struct cs_aggkey *k, const struct kval *v)
{
	if (k->is_str) {
		fprintf(out, "  %-50s", v->s);
		return;
	}
	switch (k->size) {
	case 1:
		fprintf(out, " %3d", (int)(uint8_t)v->v);
		break;
	case 2:
		fprintf(out, " %5d", (int)(uint16_t)v->v);
		break;
	case 4:
		fprintf(out, " %8d", (int)(uint32_t)v->v);
		break;
	default:
		fprintf(out, " %16lld", (long long)v->v);
		break;
	}
}

/* One row's bar: 40 columns of '@' for all of total, half each way when counts have both signs. */
static void print_bar(FILE *out, int64_t val, long double total, bool positives, bool negatives)
{
	static const char ats[] = "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@";
	static const char spaces[] = "                                        ";
	unsigned len = 40, depth;

	if (!negatives) {
		depth = positives ? (unsigned)(fabsl((long double)val) * len / total + 0.5) : 0;
		fprintf(out, "|%s%s %-9lld\n", ats + len - depth, spaces + depth, (long long)val);
		return;
	}
	if (!positives) {
		depth = (unsigned)(fabsl((long double)val) * len / total + 0.5);
		fprintf(out, "%s%s| %-9lld\n", spaces + depth, ats + len - depth, (long long)val);
		return;
	}
	len /= 2;
	depth = (unsigned)(fabsl((long double)val) * len / total + 0.5);
	if (val <= 0)
		fprintf(out, "%s%s|%*s %-9lld\n", spaces + 40 - len + depth, ats + 40 - depth,
			(int)len, "", (long long)val);
	else
		fprintf(out, "%20s|%s%s %-9lld\n", "", ats + 40 - depth, spaces + 40 - len + depth,
			(long long)val);
}

/* Buckets [0, n) of a distribution; label(i) names bucket i. Prints from one before the first used to one after the last. */
static void print_distribution(FILE *out, const struct cs_aggvar *v, const int64_t *b, int n)
{
	int first = 0, last = n - 1;
	long double total = 0;
	bool positives = false, negatives = false;

	while (first < n - 1 && !b[first])
		first++;
	if (first == n - 1 && !b[first]) {
		/* nothing: the buckets around zero (quantize) or the first ones (lquantize) */
		first = v->func == UDT_AGG_QUANTIZE ? UDT_QUANTIZE_ZEROBUCKET - 1 : 0;
		last = first + 2;
	} else {
		if (first > 0)
			first--;
		while (last > 0 && !b[last])
			last--;
		if (last < n - 1)
			last++;
	}
	for (int i = first; i <= last; i++) {
		positives |= b[i] > 0;
		negatives |= b[i] < 0;
		total += fabsl((long double)b[i]);
	}
	fprintf(out, "\n%16s %41s %-9s\n", "value", "------------- Distribution -------------",
		"count");
	for (int i = first; i <= last; i++) {
		char c[64];
		if (v->func == UDT_AGG_QUANTIZE) {
			long long bv = i < UDT_QUANTIZE_ZEROBUCKET ? -(long long)(1ull << (62 - i))
				       : i == UDT_QUANTIZE_ZEROBUCKET ? 0
								      : (long long)(1ull << (i - 64));
			fprintf(out, "%16lld ", bv);
		} else if (i == 0) {
			snprintf(c, sizeof(c), "< %lld", (long long)v->lq_base);
			fprintf(out, "%16s ", c);
		} else if (i == n - 1) {
			snprintf(c, sizeof(c), ">= %lld",
				 (long long)(v->lq_base + (int64_t)v->lq_levels * v->lq_step));
			fprintf(out, "%16s ", c);
		} else {
			fprintf(out, "%16lld ", (long long)(v->lq_base + (int64_t)(i - 1) * v->lq_step));
		}
		print_bar(out, b[i], total, positives, negatives);
	}
}

static void print_value(FILE *out, const struct merged *e)
{
	const struct cs_aggvar *v = e->var;

	switch (v->func) {
	case UDT_AGG_AVG:
		fprintf(out, " %16lld", e->val[0] ? (long long)(e->val[1] / e->val[0]) : 0);
		break;
	case UDT_AGG_QUANTIZE:
		print_distribution(out, v, e->val, UDT_QUANTIZE_NBUCKETS);
		break;
	case UDT_AGG_LQUANTIZE:
		print_distribution(out, v, e->val, (int)v->lq_levels + 2);
		break;
	default:
		fprintf(out, " %16lld", (long long)e->val[0]);
		break;
	}
}

static void report_agg_drops(struct cs_trace *t, uint32_t i, const uint8_t *table, int32_t tid)
{
	uint32_t n = table ? __atomic_load_n(&((const struct udt_agghdr *)(const void *)table)->drops,
					     __ATOMIC_RELAXED) : 0;

	if (!t->agg_drops)
		t->agg_drops = udt__xcalloc((size_t)t->o.tbuf_max + 1, sizeof(*t->agg_drops));
	if (n <= t->agg_drops[i])
		return;
	fflush(t->out);
	fprintf(stderr, "dtrace: %llu aggregation drop%s on thread %d\n",
		(unsigned long long)(n - t->agg_drops[i]), plural(n - t->agg_drops[i]), (int)tid);
	t->agg_drops[i] = n;
}

void cs__agg_print_all(struct cs_trace *t)
{
	struct mstate m = { 0 };
	uint32_t n = cs__tbuf_count(t);

	if (!t->aggact_cnt)
		return;
	for (uint32_t i = 0; i < n && i < t->o.tbuf_max; i++) {
		int32_t tid = 0;
		uint8_t *table = cs__agg_table(t, i, &tid);
		if (!table)
			continue;
		report_agg_drops(t, i, table, tid);
		merge_table(t, &m, table, t->o.aggsize);
	}
	if (t->agg_local)
		merge_table(t, &m, t->agg_local, t->o.aggsize);
	if (m.cnt > 1)
		qsort(m.v, m.cnt, sizeof(*m.v), entcmp);
	for (size_t i = 0; i < m.cnt; i++) {
		const struct merged *e = &m.v[i];
		for (size_t k = 0; k < e->var->nkeys; k++)
			print_key(t->out, &e->var->keys[k], &e->keys[k]);
		print_value(t->out, e);
		fputc('\n', t->out);
	}
	for (size_t i = 0; i < m.cnt; i++) {
		free_keys(m.v[i].keys, m.v[i].var->nkeys);
		free(m.v[i].val);
		free(m.v[i].ck);
	}
	free(m.v);
	free(m.slots);
}
