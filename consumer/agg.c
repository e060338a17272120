/* SPDX-License-Identifier: MIT */
/*
 * Aggregations: compiling `@name[keys] = func(args)`, and merging and
 * printing what the threads aggregated.
 *
 * Every aggregating action of every ECB is its own aggregation for the
 * runtime (its aggid), whose key holds only the components that are not
 * constants for that probe: `@[probefunc] = count()` has an empty key, and
 * the function's name is ours to fill in. Each thread of the target keeps a
 * table of its own in the shared memory (vm/agg.c); BEGIN and END
 * aggregate into a table here with the same code. At exit we read every
 * table, merge entries of the same variable and key, sort them as DTrace
 * does (by variable, then value, then key, integers unsigned) and print them
 * as dtrace(1) prints them.
 */
#include "consumer/internal.h"
#include "vm/agg.h"
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
	{ "stddev", UDT_AGG_STDDEV, 1, 1 },
	{ "quantize", UDT_AGG_QUANTIZE, 1, 2 },
	{ "lquantize", UDT_AGG_LQUANTIZE, 3, 5 },
	{ "llquantize", UDT_AGG_LLQUANTIZE, 5, 6 },
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

static struct out_aggvar *find_var(struct cs_trace *t, const char *name)
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
	struct out_aggvar *v = find_var(t, name);
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

	/* a member's are the lead's: one variable, whatever process aggregates into it */
	if (t->lead) {
		t->aggvars = udt__xcalloc(t->lead->aggvar_cnt + 1, sizeof(*t->aggvars));
		if (t->lead->aggvar_cnt) /* (none: the lead's is NULL) */
			memcpy(t->aggvars, t->lead->aggvars,
			       t->lead->aggvar_cnt * sizeof(*t->aggvars));
		t->aggvar_cnt = t->aggvar_cap = t->lead->aggvar_cnt;
		t->aggvars_borrowed = true;
		return 0;
	}

	for (size_t i = 0; i < n; i++)
		if (declare_stmts(t, cls[i]->stmts, cls[i]->stmt_cnt, ret_err))
			return -1;
	return 0;
}

static const char *plural(size_t n)
{
	return n == 1 ? "" : "s";
}

/*
 * Parameter i of aggregating function call (args[i + 1]: DTrace numbers them
 * from 1 after the value) as an integer constant: false, with DTrace's
 * message, when it is not one. name: what llquantize() calls it, or NULL.
 */
static bool quant_param(struct cs_trace *t, const struct dl_node *call, size_t i, const char *name,
			const struct dl_probe_ctx *ctx, int64_t *ret, char **ret_err)
{
	struct cs_action a = { 0 };

	if (cs__compile_expr(t, call->args[i + 1], call, ctx, &a, ret_err))
		return false;
	bool ok = a.kind == CS_ACT_TRACE_CONST && !a.is_str;
	*ret = a.cval;
	dl_difo_free(&a.difo);
	if (!ok)
		*ret_err = cs__at_err(call->args[i + 1],
				      udt__xasprintf("%s( ) argument #%zu %s%s%smust be an integer "
						     "constant", call->a->name, i + 1,
						     name ? "(" : "", name ? name : "",
						     name ? ") " : ""));
	return ok;
}

/* lquantize(value, base, limit[, step[, increment]]): the constants, checked as DTrace checks them. */
static int lquantize_args(struct cs_trace *t, struct out_aggvar *v, const struct dl_node *call,
			  const struct dl_probe_ctx *ctx, char **ret_err)
{
	int64_t base, limit, step = 1;
	const struct dl_node *at = call;
	char *msg = NULL;

	if (!quant_param(t, call, 0, NULL, ctx, &base, ret_err) ||
	    !quant_param(t, call, 1, NULL, ctx, &limit, ret_err) ||
	    (call->arg_cnt > 3 && !quant_param(t, call, 2, NULL, ctx, &step, ret_err)))
		return -1;
	if (base < INT32_MIN || base > INT32_MAX || limit < INT32_MIN || limit > INT32_MAX) {
		at = call->args[base < INT32_MIN || base > INT32_MAX ? 1 : 2];
		msg = udt__xasprintf("lquantize( ) argument #%d must be a 32-bit quantity",
				     at == call->args[1] ? 1 : 2);
	} else if (limit < base) {
		msg = udt__xstrdup("lquantize( ) base (argument #1) must be less than limit "
				   "(argument #2)");
	} else if (step <= 0) {
		at = call->args[3];
		msg = udt__xstrdup("lquantize( ) argument #3 must be a non-zero positive integer "
				   "constant");
	} else if (step > UINT16_MAX) {
		at = call->args[3];
		msg = udt__xstrdup("lquantize( ) argument #3 must be a 16-bit quantity");
	} else if ((limit - base) / step == 0) {
		msg = udt__xstrdup("lquantize( ) step (argument #3) too large: must have at least "
				   "one quantization level");
	} else if ((limit - base) / step > UINT16_MAX) {
		msg = udt__xstrdup("lquantize( ) step (argument #3) too small: number of "
				   "quantization levels must be a 16-bit quantity");
	}
	if (msg) {
		*ret_err = cs__at_err(at, msg);
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
		msg = udt__xasprintf("lquantize( ) base (argument #1) doesn't match previous "
				     "declaration: expected %lld, found %lld",
				     (long long)v->lq_base, (long long)base);
	else if (base + (int64_t)levels * step != old_limit)
		msg = udt__xasprintf("lquantize( ) limit (argument #2) doesn't match previous "
				     "declaration: expected %lld, found %lld", (long long)old_limit,
				     (long long)(base + (int64_t)levels * step));
	else if ((uint32_t)step != v->lq_step)
		msg = udt__xasprintf("lquantize( ) step (argument #3) doesn't match previous "
				     "declaration: expected %u, found %lld", v->lq_step,
				     (long long)step);
	if (msg) {
		*ret_err = cs__at_err(call, msg);
		return -1;
	}
	return 0;
}

/*
 * llquantize(value, factor, low, high, nsteps[, increment]): its constants,
 * as DTrace checks them. (The runtime also takes factor^(high + 1) in 64
 * signed bits: see udt_llquantize_ok().)
 */
static int llquantize_args(struct cs_trace *t, struct out_aggvar *v, const struct dl_node *call,
			   const struct dl_probe_ctx *ctx, char **ret_err)
{
	static const char *const names[] = { "factor", "low magnitude", "high magnitude",
					     "linear steps per magnitude" };
	int64_t a[4];
	char *msg = NULL;
	const struct dl_node *at = call;

	for (size_t i = 0; i < 4; i++) {
		if (!quant_param(t, call, i, names[i], ctx, &a[i], ret_err))
			return -1;
		if ((uint64_t)a[i] > UINT16_MAX) {
			*ret_err = cs__at_err(call->args[i + 1],
					      udt__xasprintf("llquantize( ) argument #%zu (%s) must "
							     "be an unsigned 16-bit quantity", i + 1,
							     names[i]));
			return -1;
		}
	}
	uint64_t factor = (uint64_t)a[0], low = (uint64_t)a[1], high = (uint64_t)a[2],
		 nsteps = (uint64_t)a[3], pow = factor;
	while (factor >= 2 && pow < nsteps)
		pow *= factor;
	if (factor < 2)
		msg = udt__xstrdup("llquantize( ) factor (argument #1) must be two or more");
	else if (low >= high)
		msg = udt__xstrdup("llquantize( ) high magnitude (argument #3) must be greater "
				   "than low magnitude (argument #2)");
	else if (nsteps < factor)
		msg = udt__xstrdup("llquantize( ) factor (argument #1) must be less than or equal "
				   "to the number of linear steps per magnitude (argument #4)");
	else if (nsteps % factor || pow % nsteps)
		msg = udt__xstrdup("llquantize( ) factor (argument #1) must evenly divide the "
				   "number of steps per magnitude (argument #4), and the number of "
				   "steps per magnitude must evenly divide a power of the factor");
	else if (!udt_llquantize_ok(factor, low, high, nsteps))
		msg = udt__xasprintf("llquantize( ) factor (%llu) raised to power of high "
				     "magnitude (%llu) overflows 64-bits", (unsigned long long)factor,
				     (unsigned long long)high);
	if (msg) {
		*ret_err = cs__at_err(at, msg);
		return -1;
	}
	if (!v->lq_known) {
		v->llq_factor = (uint16_t)factor;
		v->llq_low = (uint16_t)low;
		v->llq_high = (uint16_t)high;
		v->llq_nsteps = (uint16_t)nsteps;
		v->lq_levels = udt_llquantize_bucket(v->llq_factor, v->llq_low, v->llq_high,
						     v->llq_nsteps, INT64_MAX) + 1;
		v->lq_known = true;
		return 0;
	}
	const int64_t old[] = { v->llq_factor, v->llq_low, v->llq_high, v->llq_nsteps };
	for (size_t i = 0; i < 4; i++) {
		if (old[i] == a[i])
			continue;
		*ret_err = cs__at_err(call, udt__xasprintf("llquantize( ) %s (argument #%zu) "
							   "doesn't match previous declaration: "
							   "expected %lld, found %lld", names[i],
							   i + 1, (long long)old[i],
							   (long long)a[i]));
		return -1;
	}
	return 0;
}

static const char *key_type_name(const struct out_aggkey *k)
{
	static const char *const addr[] = { "", "uaddr( )", "usym( )", "umod( )", "stack" };

	if (k->sym)
		return addr[k->sym];
	if (k->is_str)
		return "string";
	return k->size == 8 ? "int64_t" : k->size == 4 ? "int" : k->size == 2 ? "short" : "char";
}

/* The keys of aggregating assignment x, checked against the variable's prototype. */
char *cs__agg_alone(struct cs_trace *t, const struct dl_node *x)
{
	const struct dl_node *ag = x->kind == DL_N_INDEX ? x->a : x;

	if (x->kind == DL_N_AGG && !find_var(t, ag->name))
		return cs__at_err(x, udt__xasprintf("failed to resolve @%s: Unknown variable name",
						    ag->name));
	return cs__at_err(x, udt__xasprintf("expression has null effect: @%s", ag->name));
}

static int compile_keys(struct cs_trace *t, struct cs_aggact *ag, const struct dl_node *x,
			const struct dl_probe_ctx *ctx, char **ret_err)
{
	struct out_aggvar *v = ag->var;
	const struct dl_node *ix = x->a->kind == DL_N_INDEX ? x->a : NULL;
	size_t n = ix ? ix->arg_cnt : 0;
	struct out_aggkey *proto = udt__xcalloc(n + 1, sizeof(*proto));

	ag->keys = udt__xcalloc(n + 1, sizeof(*ag->keys));
	for (size_t k = 0; k < n; k++) {
		struct cs_action *a = &ag->keys[k];

		a->narrow = true; /* (recorded at its type's size, as DTrace records keys) */
		if (dl_node_is_action(ix->args[k]) || cs__is_agg_node(ix->args[k])) {
			*ret_err = cs__at_err(ix->args[k], udt__xasprintf(
				"a key of type %s is not supported",
				cs__is_agg_node(ix->args[k]) ? "aggregation" : "void"));
			goto fail;
		}
		if (cs__compile_expr(t, ix->args[k], ix, ctx, a, ret_err))
			goto fail;
		ag->nkeys++;
		a->from_hdr = false; /* a key is built whole in the target */
		/* (a stack or an address is named when taken: a string, stack.c) */
		proto[k].is_str = a->kind == CS_ACT_TRACE_STR || a->is_str || a->sym;
		proto[k].sym = a->sym;
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
		if (proto[k].is_str == v->keys[k].is_str && proto[k].sym == v->keys[k].sym)
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
	struct out_aggvar *v = find_var(t, agg_node(x)->name);
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
	if (f->func == UDT_AGG_LLQUANTIZE && llquantize_args(t, v, call, ctx, ret_err))
		return -1;
	/* the increment: quantize's second argument, the quantizations' last optional one */
	if (call->arg_cnt == f->max_args && f->max_args > f->min_args) {
		const struct dl_node *in = call->args[call->arg_cnt - 1];
		if (cs__compile_expr(t, in, call, ctx, &ag->incr, ret_err))
			return -1;
		ag->has_incr = true;
		ag->incr.from_hdr = false;
		if (ag->incr.kind == CS_ACT_TRACE_STR || ag->incr.is_str) {
			*ret_err = cs__at_err(in, udt__xasprintf("%s( ) argument #%zu is incompatible "
								 "with prototype:\n\tprototype: "
								 "integer\n\t argument: string",
								 f->name, call->arg_cnt));
			return -1;
		}
	}
	struct cs_action a = { .kind = CS_ACT_AGG, .agg = ag };
	UDT__PUSH(e->acts, e->act_cnt, e->act_cap, a);
	return 0;
}

/* -- printa(), clear(), trunc(), normalize(), denormalize() ------------------------------------ */

static const struct {
	const char *name;
	enum cs_act_kind kind;
	unsigned min_args, max_args;
} aggops[] = {
	{ "printa", CS_ACT_PRINTA, 1, 1024 },
	{ "clear", CS_ACT_CLEAR, 1, 1 },
	{ "trunc", CS_ACT_TRUNC, 1, 2 },
	{ "normalize", CS_ACT_NORMALIZE, 2, 2 },
	{ "denormalize", CS_ACT_DENORMALIZE, 1, 1 },
};

bool cs__agg_is_op(const char *fn)
{
	for (size_t i = 0; i < UDT__ARRAY_SIZE(aggops); i++)
		if (!strcmp(fn, aggops[i].name))
			return true;
	return false;
}

/* The aggregation argument i of call (for fn); NULL with a message. */
static struct out_aggvar *agg_arg(struct cs_trace *t, const char *fn, const struct dl_node *call,
				 size_t i, char **ret_err)
{
	const struct dl_node *x = call->args[i];

	if (x->kind != DL_N_AGG) {
		*ret_err = cs__at_err(x, udt__xasprintf("%s( ) argument #%zu is incompatible with "
							"prototype:\n\tprototype: aggregation\n"
							"\t argument: %s", fn, i + 1,
							x->kind == DL_N_STRING ? "string"
									       : "expression"));
		return NULL;
	}
	struct out_aggvar *v = find_var(t, x->name);
	if (!v)
		*ret_err = cs__at_err(x, udt__xasprintf("failed to resolve @%s: Unknown variable "
							"name", x->name));
	return v;
}

/* printa(format, @a): the format's conversions against the keys (and %@ the value). */
static int printa_format(const struct dl_node *call, struct out_aggvar *v,
			 struct out_printf *pf, char **ret_err)
{
	const struct dl_node *fmt = call->args[0];
	char *msg = NULL;

	if (fmt->kind != DL_N_STRING) {
		*ret_err = cs__at_err(fmt, udt__xstrdup("printa( ) argument #1 is incompatible with "
							"prototype:\n\tprototype: string constant"
							"\n\t argument: expression"));
		return -1;
	}
	if (out_printf_parse(fmt->sval, pf, &msg)) {
		*ret_err = cs__at_err(fmt, msg);
		return -1;
	}
	if (!v->keys_known)
		return 0; /* (its keys are checked where it is assigned) */
	/* the values it takes, in order: the keys, and the aggregation for %@ */
	size_t n = 0, k = 0;
	struct out_pfval *vals = udt__xcalloc(pf->nvals + 1, sizeof(*vals));
	for (size_t c = 0; c < pf->cnt && pf->v[c].conv; c++) {
		const struct out_pfconv *cv = &pf->v[c];
		size_t take = 1 + (cv->width == OUT_PF_STAR) + (cv->prec == OUT_PF_STAR);
		for (size_t j = 0; j < take; j++, n++) {
			/* (the keys' D types are not kept: a length's size is not checked) */
			if (cv->agg && j + 1 == take) {
				vals[n] = (struct out_pfval){ .kind = OUT_PFV_INT, .name = "aggregation" };
			} else if (k < v->nkeys) {
				vals[n] = (struct out_pfval){
					.kind = v->keys[k].is_str ? OUT_PFV_STR : OUT_PFV_INT,
					.name = key_type_name(&v->keys[k]) };
				k++;
			} else {
				break;
			}
		}
	}
	int err = out_printf_check("printa", pf, vals, n, &msg);
	free(vals);
	if (err) {
		*ret_err = cs__at_err(call, msg);
		return -1;
	}
	return 0;
}

/*
 * printa() of several aggregations (from argument first on): they must
 * have the same keys as the first, with DTrace's messages (dt_printa_validate()).
 */
static int printa_joined(struct cs_trace *t, const struct dl_node *call, bool fmt,
			 struct cs_action *a, char **ret_err)
{
	size_t first = fmt ? 1 : 0, n = call->arg_cnt - first;
	struct out_aggvar *l = a->aggvar;

	a->aggvars = udt__xcalloc(n, sizeof(*a->aggvars));
	a->naggvars = n;
	a->aggvars[0] = l;
	for (size_t i = 1; i < n; i++) {
		struct out_aggvar *r = agg_arg(t, "printa", call, first + i, ret_err);
		if (!r)
			return -1;
		a->aggvars[i] = r;
		if (!l->keys_known || !r->keys_known)
			continue; /* (checked where they are assigned) */
		if (l->nkeys != r->nkeys) {
			*ret_err = cs__at_err(call->args[first + i],
					      udt__xasprintf("printa( ): @%s and @%s do not have "
							     "matching key signatures: @%s has %zu "
							     "key%s, @%s has %zu key%s", l->name, r->name,
							     l->name, l->nkeys, plural(l->nkeys), r->name,
							     r->nkeys, plural(r->nkeys)));
			return -1;
		}
		for (size_t k = 0; k < l->nkeys; k++) {
			if (l->keys[k].is_str == r->keys[k].is_str &&
			    (l->keys[k].is_str || l->keys[k].size == r->keys[k].size))
				continue;
			*ret_err = cs__at_err(call->args[first + i],
					      udt__xasprintf("printa( ): @%s[ ] key #%zu is incompatible "
							     "with @%s:\n%9s key #%zu: %s\n%9s key #%zu: "
							     "%s", r->name, k + 1, l->name, l->name, k + 1,
							     key_type_name(&l->keys[k]), r->name, k + 1,
							     key_type_name(&r->keys[k])));
			return -1;
		}
	}
	return 0;
}

int cs__agg_compile_op(struct cs_trace *t, struct cs_ecb *e, const struct dl_node *call,
		       const struct dl_probe_ctx *ctx, char **ret_err)
{
	const char *fn = call->a->name;
	size_t op = 0;

	while (strcmp(aggops[op].name, fn))
		op++;
	if (call->arg_cnt < aggops[op].min_args || call->arg_cnt > aggops[op].max_args) {
		*ret_err = cs__at_err(call, udt__xasprintf("%s( ) prototype mismatch: %zu arg%s "
							   "passed, %s%u expected", fn,
							   call->arg_cnt, plural(call->arg_cnt),
							   aggops[op].min_args == aggops[op].max_args
							   ? "" : call->arg_cnt < aggops[op].min_args
							   ? "at least " : "at most ",
							   call->arg_cnt < aggops[op].min_args
							   ? aggops[op].min_args : aggops[op].max_args));
		return -1;
	}
	bool printa = aggops[op].kind == CS_ACT_PRINTA;
	bool fmt = printa && call->arg_cnt >= 2 && call->args[0]->kind != DL_N_AGG;
	struct cs_action a = { .kind = aggops[op].kind };
	a.aggvar = agg_arg(t, fn, call, fmt ? 1 : 0, ret_err);
	if (!a.aggvar)
		return -1;
	if (printa && call->arg_cnt > (fmt ? 2u : 1u) && printa_joined(t, call, fmt, &a, ret_err)) {
		free(a.aggvars);
		return -1;
	}
	if (fmt) {
		a.pf = udt__xcalloc(1, sizeof(*a.pf));
		if (printa_format(call, a.aggvar, a.pf, ret_err)) {
			out_printf_free(a.pf);
			free(a.pf);
			free(a.aggvars);
			return -1;
		}
		t->names_addrs |= a.pf->names_addrs; /* (the mappings read at the start: stack.c) */
	}
	/* trunc's count and normalize's divisor: values recorded after the action */
	bool has_val = (a.kind == CS_ACT_TRUNC || a.kind == CS_ACT_NORMALIZE) && call->arg_cnt == 2;
	a.pf_nvals = has_val;
	UDT__PUSH(e->acts, e->act_cnt, e->act_cap, a);
	if (has_val) {
		struct cs_action v = { .pf_value = true };
		if (cs__compile_value(t, e, call->args[1], call, ctx, &v, ret_err))
			return -1;
		if (v.kind == CS_ACT_TRACE_STR || v.is_str) {
			dl_difo_free(&v.difo);
			*ret_err = cs__at_err(call->args[1],
					      udt__xasprintf("%s( ) argument #2 is incompatible with "
							     "prototype:\n\tprototype: integer\n"
							     "\t argument: string", fn));
			return -1;
		}
		UDT__PUSH(e->acts, e->act_cnt, e->act_cap, v);
	}
	return 0;
}

void cs__agg_free(struct cs_trace *t)
{
	cs__agg_free_data(t); /* (its entries name the variables) */
	/* (a fork child's first ones are its parent's) */
	for (size_t i = t->aggact_borrowed; i < t->aggact_cnt; i++) {
		struct cs_aggact *ag = t->aggacts[i];
		for (size_t k = 0; k < ag->nkeys; k++)
			dl_difo_free(&ag->keys[k].difo);
		free(ag->keys);
		dl_difo_free(&ag->val.difo);
		dl_difo_free(&ag->incr.difo);
		free(ag);
	}
	free(t->aggacts);
	for (size_t i = 0; i < t->aggvar_cnt && !t->aggvars_borrowed; i++) {
		free(t->aggvars[i]->keys);
		free(t->aggvars[i]);
	}
	free(t->aggvars);
	free(t->agg_local);
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
	const struct out_aggvar *v = ag->var;
	struct udt_aggdesc ad = { .aggid = ag->aggid, .func = v->func, .key_size = ag->key_size,
				  .lq_base = v->lq_base, .lq_step = v->lq_step,
				  .lq_levels = v->lq_levels, .llq_factor = v->llq_factor,
				  .llq_low = v->llq_low, .llq_high = v->llq_high,
				  .llq_nsteps = v->llq_nsteps };
	uint64_t x = 0;

	if (!t->agg_local)
		t->agg_local = udt__xcalloc(1, t->o.aggsize);
	uint8_t *key = udt__agg_scratch(t->agg_local, t->o.aggsize);
	if (!key)
		return 0;
	memset(key, 0, ag->key_size);
	for (size_t k = 0; k < ag->nkeys; k++) {
		const struct cs_action *a = &ag->keys[k];
		if (a->kind == CS_ACT_TRACE_CONST)
			continue;
		if (a->kind == CS_ACT_TRACE_STR) {
			/* a D string here, or dtrace's own memory */
			if (cs__vars_str(a, vm, key + a->off))
				return -1;
			continue;
		}
		if (local_value(a, vm, &x))
			return -1;
		memcpy(key + a->off, &x, 8);
	}
	uint64_t incr = 1;
	x = 0;
	if ((ag->has_val && local_value(&ag->val, vm, &x)) ||
	    (ag->has_incr && local_value(&ag->incr, vm, &incr)))
		return -1;
	udt__agg_update(t->agg_local, t->o.aggsize, &ad, key, NULL, 0, (int64_t)x, (int64_t)incr);
	return 0;
}

