/* SPDX-License-Identifier: MIT */
/*
 * User stacks and addresses in D (docs/profile.md, "Stacks"): ustack(),
 * ustack(n), ustack(n, strsize), uaddr(), usym(), ufunc() and umod(), as
 * actions and as aggregation keys; the kernel-only functions refused. Their
 * text, as dt_consume.c prints them, and the folded output (-x
 * aggfmt=folded) of aggregations keyed by a stack are the output's
 * (output/stack.c); the names, proc's (proc/symbol.c).
 *
 * A stack is recorded by the target (UDT_ACT_USTACK: n return addresses,
 * zero after the last) and named by proc (proc/symbol.c). An aggregation key that
 * is a stack or an address is named when the threads' tables are taken (at
 * aggrate, while the process lives): the totals keep the text, so that
 * addresses of one function merge for usym() and ufunc() (DTrace normalizes
 * them to the function's start), of one module for umod(), and stacks that
 * read the same merge too.
 */
#include "consumer/internal.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>


/* -- Compiling ----------------------------------------------------------------------------- */

static const struct {
	const char *name;
	enum out_addrfmt sym;
} addr_funcs[] = {
	{ "uaddr", OUT_ADDR_UADDR }, { "usym", OUT_ADDR_USYM }, { "ufunc", OUT_ADDR_USYM },
	{ "umod", OUT_ADDR_UMOD },
};

/* Functions of DTrace's that act on the kernel, and why none is here. */
static const struct {
	const char *name;
	const char *why;
} kernel_funcs[] = {
	{ "stack", "records a kernel stack: use ustack( )" },
	{ "jstack", "needs a Java ustack helper, which processes here do not have: use ustack( )" },
	{ "sym", "names a kernel symbol: use usym( )" },
	{ "func", "names a kernel function: use ufunc( )" },
	{ "mod", "names a kernel module: use umod( )" },
	{ "breakpoint", "stops the kernel" },
	{ "panic", "panics the kernel" },
};

static const char *call_name(const struct dl_node *x)
{
	return x && x->kind == DL_N_CALL && x->a->kind == DL_N_IDENT ? x->a->name : NULL;
}

bool cs__stack_is_func(const char *fn)
{
	if (!strcmp(fn, "ustack"))
		return true;
	for (size_t i = 0; i < UDT__ARRAY_SIZE(addr_funcs); i++)
		if (!strcmp(fn, addr_funcs[i].name))
			return true;
	for (size_t i = 0; i < UDT__ARRAY_SIZE(kernel_funcs); i++)
		if (!strcmp(fn, kernel_funcs[i].name))
			return true;
	return false;
}

int cs__stack_compile(struct cs_trace *t, const struct dl_node *x, const struct dl_probe_ctx *ctx,
		      struct cs_action *a, char **ret_err)
{
	const char *fn = call_name(x);

	if (!fn || !cs__stack_is_func(fn))
		return 0;
	for (size_t i = 0; i < UDT__ARRAY_SIZE(kernel_funcs); i++) {
		if (strcmp(fn, kernel_funcs[i].name))
			continue;
		*ret_err = cs__at_err(x, udt__xasprintf("%s( ) %s, and udtrace traces processes only",
							fn, kernel_funcs[i].why));
		return -1;
	}
	/* the process's own stack: not in dtrace's BEGIN, END and tick clauses */
	const struct pb_probe *pr = t->cur_probe;
	if (pr && pb_runs_here(pr) && !strcmp(fn, "ustack")) {
		*ret_err = cs__at_err(x, udt__xasprintf("ustack( ) has no stack to record in %s: "
							"the clause runs in dtrace", pr->name));
		return -1;
	}
	if (!strcmp(fn, "ustack")) {
		int64_t n = (int64_t)t->o.ustackframes, strsize = 0;
		if (x->arg_cnt > 2) {
			*ret_err = cs__at_err(x, udt__xasprintf("ustack( ) prototype mismatch: %zu args "
								"passed, at most 2 expected",
								x->arg_cnt));
			return -1;
		}
		if ((x->arg_cnt > 0 && cs__const_arg(t, x, 0, ctx, &n, ret_err)) ||
		    (x->arg_cnt > 1 && cs__const_arg(t, x, 1, ctx, &strsize, ret_err)))
			return -1;
		if (n < 1 || strsize < 0) {
			*ret_err = cs__at_err(x, udt__xasprintf(
				n < 1 ? "ustack( ) argument #1 must be between 1 and %d frames"
				      : "ustack( ) argument #2 must not be negative", UDT_USTACK_MAX));
			return -1;
		}
		/* more frames than -x maxframes (at most UDT_USTACK_MAX) are capped, as
		   Oracle's DTrace caps them */
		if (n > (int64_t)t->o.maxframes)
			n = (int64_t)t->o.maxframes;
		/* (strsize is for ustack helpers, which processes here do not have) */
		*a = (struct cs_action){ .kind = CS_ACT_USTACK, .nframes = (uint32_t)n,
					 .size = (unsigned)n * 8, .sym = OUT_ADDR_USTACK };
		t->names_addrs = true;
		return 1;
	}
	if (x->arg_cnt != 1) {
		*ret_err = cs__at_err(x, udt__xasprintf("%s( ) prototype mismatch: %zu args passed, "
							"1 expected", fn, x->arg_cnt));
		return -1;
	}
	if (cs__compile_expr(t, x->args[0], x, ctx, a, ret_err))
		return -1;
	if (a->kind == CS_ACT_TRACE_STR || a->is_str || a->difo.is_string) {
		dl_difo_free(&a->difo);
		*ret_err = cs__at_err(x->args[0], udt__xasprintf("%s( ) argument #1 is incompatible "
								 "with prototype:\n\tprototype: "
								 "uintptr_t\n\t argument: string",
								 fn));
		return -1;
	}
	a->size = 8;
	a->from_hdr = false;
	t->names_addrs = true;
	for (size_t i = 0; i < UDT__ARRAY_SIZE(addr_funcs); i++)
		if (!strcmp(fn, addr_funcs[i].name))
			a->sym = (uint8_t)addr_funcs[i].sym;
	return 1;
}

/* -- Naming ------------------------------------------------------------------------------- */

struct pr_syms *cs__trace_syms(struct cs_trace *t)
{
	if (!t->syms && t->proc)
		t->syms = pr_syms_new(t->proc->pid);
	return t->syms;
}

void cs__stack_start(struct cs_trace *t)
{
	/* the process's mappings now, while it is there: it may exit before anything prints */
	if (t->names_addrs)
		(void)cs__trace_syms(t);
}

/* How proc names an address as the output asks. */
static enum pr_symfmt symfmt(enum out_addrfmt fmt)
{
	return fmt == OUT_ADDR_UMOD ? PR_SYM_MOD : fmt == OUT_ADDR_USYM ? PR_SYM_FUNC : PR_SYM_ADDR;
}

static const char *name_addr(void *arg, uint64_t pc, enum out_addrfmt fmt, bool ret)
{
	return pr_syms_name(cs__trace_syms(arg), pc, symfmt(fmt), ret);
}

const struct out_namer *cs__namer(struct cs_trace *t)
{
	t->namer = (struct out_namer){ .name = name_addr, .arg = t };
	return &t->namer;
}

char *cs__stack_key_text(struct cs_trace *t, const struct cs_action *a, const uint8_t *key)
{
	uint64_t pc = (uint64_t)a->cval;

	if (a->kind == CS_ACT_USTACK)
		return out_stack_text(cs__namer(t), key + a->off, a->nframes, t->o.out.stackindent);
	if (a->kind != CS_ACT_TRACE_CONST)
		memcpy(&pc, key + a->off, 8);
	return udt__xstrdup(out_name(cs__namer(t), pc, (enum out_addrfmt)a->sym, false));
}

/* -- Clauses --------------------------------------------------------------------------------- */

static const struct dl_node *find_node(const struct dl_node *x,
				       bool (*pred)(const struct dl_node *))
{
	const struct dl_node *f;

	if (!x)
		return NULL;
	if (pred(x))
		return x;
	if ((f = find_node(x->a, pred)) || (f = find_node(x->b, pred)) ||
	    (f = find_node(x->c, pred)))
		return f;
	for (size_t i = 0; i < x->arg_cnt; i++)
		if ((f = find_node(x->args[i], pred)))
			return f;
	return NULL;
}

static const struct dl_node *find_stmt(const struct dl_stmt *st,
				       bool (*pred)(const struct dl_node *))
{
	const struct dl_node *f = find_node(st->expr, pred);

	for (size_t i = 0; !f && i < st->body_cnt; i++)
		if (st->body[i])
			f = find_stmt(st->body[i], pred);
	return f;
}

const struct dl_node *cs__clause_find(const struct dl_clause *cl,
				      bool (*pred)(const struct dl_node *))
{
	const struct dl_node *f = find_node(cl->predicate, pred);

	for (size_t i = 0; !f && i < cl->stmt_cnt; i++)
		f = find_stmt(cl->stmts[i], pred);
	return f;
}
