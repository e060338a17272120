/* SPDX-License-Identifier: MIT */
/*
 * Enablings: from D clauses to ECBs, and the session with the target.
 *
 * cs_trace_open() matches every clause's probe descriptions against the
 * probes of the target and compiles the clause once per probe matched (the
 * probe variables are constants of each probe, so predicates on them fold):
 * one ECB per clause and probe, numbered by EPID. BEGIN and END clauses are
 * compiled too, but run here, in the consumer, as DTrace runs them in its own
 * context.
 *
 * cs_trace_start() opens a session (docs/runtime.md): it checks the
 * runtime's identity (udt__runtime_id), lays the ECBs and
 * their bytecode out in an enabling area, writes it into the control block
 * of the target's runtime (the area the previous session did not use), sets
 * the session's parameters and then state = ACTIVE, and finally points the
 * objects' udt__dispatch at udt__fire and increments the probes' semaphores.
 * All through process_vm_writev: allowed exactly when we may ptrace the
 * target; nothing in the target runs until a probe fires.
 *
 * Undoing it (detach) reverses the last two steps with the lists the target
 * holds (the runtime strikes the entries of objects unloaded meanwhile); if
 * the deadman ended the session first, the runtime has already undone them.
 */
#include "consumer/internal.h"
#include "util/util.h"

#include <errno.h>
#include <linux/membarrier.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define CTL_FIELD(f) (t->ctl + offsetof(struct udt_control, f))

/* The name field of a probe description. */
static const char *name_of(const char *desc)
{
	const char *c = strrchr(desc, ':');

	return c ? c + 1 : desc;
}

/* -- Compiling clauses ------------------------------------------------------------------- */

/* Our own compiler's output must pass the runtime's verifier: check it here too. */
int cs__check_difo(struct cs_trace *t, const struct dl_difo *d, const struct dl_node *at,
		   char **ret_err)
{
	uint32_t insn = 0;

	/* copyout() and copyoutstr() are destructive; in dtrace (BEGIN...) they would write
	   dtrace's own memory, which DTrace's would too: refused */
	if (d->writes) {
		t->destructive_used = true;
		if (t->cur_probe && pb_runs_here(t->cur_probe)) {
			*ret_err = udt__xasprintf("%s:%d:%d: error: copyout( ) and copyoutstr( ) "
						  "have no process to write to in %s: the clause runs "
						  "in dtrace", at->loc.file, at->loc.line,
						  at->loc.col, t->cur_probe->name);
			return -1;
		}
	}
	if (d->is_const || !udt_difo_verify((const void *)d->bytes, d->sz, &insn))
		return 0;
	*ret_err = udt__xasprintf("%s:%d:%d: error: internal error: the compiled code fails "
				  "verification at instruction %u", at->loc.file, at->loc.line,
				  at->loc.col, insn);
	return -1;
}

/* Compile expression x into a value action: an integer, a string, or a constant. */
int cs__compile_expr(struct cs_trace *t, const struct dl_node *x, const struct dl_node *at,
		     const struct dl_probe_ctx *ctx, struct cs_action *a, char **ret_err)
{
	a->expr = x;
	/* ustack(), usym() and the others: stack.c */
	int r = cs__stack_compile(t, x, ctx, a, ret_err);
	if (r)
		return r < 0 ? -1 : 0;
	if ((a->narrow ? dl_compile_narrow : dl_compile)(t->prog, x, ctx, &a->difo, ret_err))
		return -1;
	if (cs__check_difo(t, &a->difo, at, ret_err)) {
		dl_difo_free(&a->difo);
		return -1;
	}
	if (a->difo.copyinstr) {
		a->kind = CS_ACT_TRACE_STR;
		a->size = (unsigned)t->o.strsize;
		if (a->difo.str_max && a->difo.str_max + 1 < a->size)
			a->size = (unsigned)a->difo.str_max + 1; /* a char array: its size */
	} else if (a->difo.is_const) {
		a->kind = CS_ACT_TRACE_CONST;
		a->is_str = a->difo.is_string;
		a->cstr = a->difo.const_str;
		a->cval = a->difo.const_val;
		a->size = dl_type_trace_size(a->difo.type, &a->is_signed);
	} else {
		a->kind = CS_ACT_TRACE;
		a->size = dl_type_trace_size(a->difo.type, &a->is_signed);
		a->from_hdr = a->difo.direct_var == UDT_VAR_TIMESTAMP;
		a->is_float = dl_type_argclass(a->difo.type) == DL_ARG_FLOAT;
	}
	return 0;
}

int cs__const_arg(struct cs_trace *t, const struct dl_node *call, size_t i,
		  const struct dl_probe_ctx *ctx, int64_t *ret, char **ret_err)
{
	struct cs_action a = { 0 };

	if (cs__compile_expr(t, call->args[i], call, ctx, &a, ret_err))
		return -1;
	bool ok = a.kind == CS_ACT_TRACE_CONST && !a.is_str;
	*ret = a.cval;
	dl_difo_free(&a.difo);
	if (!ok) {
		const char *fn = call->a->kind == DL_N_IDENT ? call->a->name : "?";
		*ret_err = cs__at_err(call->args[i], udt__xasprintf("%s( ) argument #%zu must be "
								    "an integer constant", fn,
								    i + 1));
		return -1;
	}
	return 0;
}

void cs__place(struct cs_action *a, uint32_t *size)
{
	if (a->from_hdr || a->kind == CS_ACT_TRACE_CONST) {
		/* every record's header holds the fire's timestamp; constants are ours */
	} else if (a->kind == CS_ACT_TRACE_STR || a->kind == CS_ACT_USTACK) {
		a->off = *size;
		*size += (a->size + 7) & ~7u;
	} else {
		a->off = *size;
		*size += 8;
	}
}

int cs__compile_value(struct cs_trace *t, struct cs_ecb *e, const struct dl_node *x,
			 const struct dl_node *call, const struct dl_probe_ctx *ctx,
			 struct cs_action *a, char **ret_err)
{
	if (cs__compile_expr(t, x, call, ctx, a, ret_err))
		return -1;
	cs__place(a, &e->rec_size);
	return 0;
}

/* What printf() takes a compiled value for. */
static struct out_pfval pf_value(struct cs_trace *t, const struct cs_action *a)
{
	const struct dl_difo *d = &a->difo;
	struct dl_qtype r = d->type.t ? dl_type_resolve(d->type) : d->type;
	bool str = d->is_string || a->kind == CS_ACT_TRACE_STR;
	struct out_pfval v = { .name = str ? "string" : r.t ? dl_type_cdecl(t->prog, d->type, NULL)
						       : "?", .type = d->type };

	if (a->kind == CS_ACT_USTACK)
		v = (struct out_pfval){ .kind = OUT_PFV_STACK, .name = "stack" };
	else if (str)
		v.kind = OUT_PFV_STR;
	else if (r.t && (r.t->kind == DL_PTR || r.t->kind == DL_ARRAY))
		v.kind = OUT_PFV_PTR;
	else if (dl_type_argclass(d->type) == DL_ARG_INT)
		v.kind = OUT_PFV_INT;
	else if (a->is_float)
		v.kind = OUT_PFV_FLOAT;
	else
		v.kind = OUT_PFV_OTHER;
	return v;
}

char *cs__at_err(const struct dl_node *n, char *msg)
{
	char *s = udt__xasprintf("%s:%d:%d: error: %s", n->loc.file, n->loc.line, n->loc.col, msg);

	free(msg);
	return s;
}

/*
 * printf(format, values...), and system(format, values...) (fn, kind): the
 * format's action, then one value action for each value.
 */
int cs__compile_printf(struct cs_trace *t, struct cs_ecb *e, const struct dl_node *call,
		       const struct dl_probe_ctx *ctx, const char *fn, enum cs_act_kind kind,
		       char **ret_err)
{
	const struct dl_node *fmt = call->arg_cnt ? call->args[0] : NULL;
	struct cs_action pa = { .kind = kind, .pf = udt__xcalloc(1, sizeof(*pa.pf)) };
	size_t nv = call->arg_cnt ? call->arg_cnt - 1 : 0, first;
	char *msg = NULL;

	if (!fmt) {
		*ret_err = cs__at_err(call, udt__xasprintf("%s( ) prototype mismatch: 0 args passed, "
							   "1 expected", fn));
		free(pa.pf);
		return -1;
	}
	if (fmt->kind != DL_N_STRING) {
		struct dl_difo d;
		const char *ty = "expression";
		if (!dl_compile(t->prog, fmt, ctx, &d, &msg)) {
			ty = d.is_string ? "string" : dl_type_cdecl(t->prog, d.type, NULL);
			dl_difo_free(&d);
		}
		free(msg);
		*ret_err = cs__at_err(fmt, udt__xasprintf("%s( ) argument #1 is incompatible with "
						      "prototype:\n\tprototype: string constant\n"
						      "\t argument: %s", fn, ty));
		free(pa.pf);
		return -1;
	}
	if (out_printf_parse(fmt->sval, pa.pf, &msg)) {
		*ret_err = cs__at_err(fmt, msg);
		free(pa.pf);
		return -1;
	}
	t->names_addrs |= pa.pf->names_addrs; /* (the mappings read at the start: stack.c) */
	pa.pf_nvals = nv;
	UDT__PUSH(e->acts, e->act_cnt, e->act_cap, pa);
	first = e->act_cnt;
	struct out_pfval *vals = udt__xcalloc(nv + 1, sizeof(*vals));
	int err = 0;
	for (size_t i = 0; i < nv && !err; i++) {
		struct cs_action a = { 0 };
		if (dl_node_is_action(call->args[i + 1]) || cs__is_agg_node(call->args[i + 1])) {
			/* DTrace's void, or an aggregation: a value no conversion takes (the
			   check below says so) */
			vals[i] = (struct out_pfval){ .kind = OUT_PFV_OTHER,
						     .name = dl_node_is_action(call->args[i + 1])
							     ? "void" : "aggregation" };
			continue;
		}
		err = cs__compile_value(t, e, call->args[i + 1], call, ctx, &a, ret_err);
		if (!err) {
			a.pf_value = true; /* (after: ustack() makes its action anew) */
			vals[i] = pf_value(t, &a);
			UDT__PUSH(e->acts, e->act_cnt, e->act_cap, a);
		}
	}
	if (!err && out_printf_check(fn, e->acts[first - 1].pf, vals, nv, &msg)) {
		size_t k = 0, fl = strlen(fn);
		/* the argument the message is about ("fn( ) argument #k"), for its location */
		if (!strncmp(msg, fn, fl) && !strncmp(msg + fl, "( ) argument #", 14))
			k = strtoul(msg + fl + 14, NULL, 10);
		if (k >= 2 && k - 2 < nv)
			*ret_err = cs__at_err(call->args[k - 1], msg);
		else
			*ret_err = cs__at_err(call, msg);
		err = -1;
	}
	free(vals);
	return err;
}

static int compile_action(struct cs_trace *t, struct cs_ecb *e, const struct dl_node *call,
			  const struct dl_probe_ctx *ctx, char **ret_err)
{
	const char *fn = call->a->kind == DL_N_IDENT ? call->a->name : "";
	struct cs_action a = { 0 };

	if (!strcmp(fn, "printf"))
		return cs__compile_printf(t, e, call, ctx, fn, CS_ACT_PRINTF, ret_err);
	if (cs__print_is(fn))
		return cs__print_compile(t, e, call, ctx, ret_err);
	if (cs__act_is_more(fn))
		return cs__act_compile(t, e, call, ctx, ret_err);
	if (cs__agg_is_op(fn))
		return cs__agg_compile_op(t, e, call, ctx, ret_err);
	if (cs__spec_is_action(fn))
		return cs__spec_compile(t, e, call, ctx, ret_err);
	/* ustack(), usym()... (recorded like trace()'s value: stack.c), and a subroutine's value
	   as a statement (traced, as in DTrace) */
	if (cs__stack_is_func(fn) || dl_node_is_subr(call)) {
		if (cs__compile_value(t, e, call, call, ctx, &a, ret_err))
			return -1;
		UDT__PUSH(e->acts, e->act_cnt, e->act_cap, a);
		return 0;
	}
	if (strcmp(fn, "trace") && strcmp(fn, "exit")) {
		/* (DTrace's functions that act on the kernel are refused, with why, in stack.c) */
		*ret_err = cs__at_err(call, *fn ? udt__xasprintf("undefined function name: %s", fn)
					       : udt__xstrdup("this call is not supported"));
		return -1;
	}
	if (call->arg_cnt != 1) {
		*ret_err = udt__xasprintf("%s:%d:%d: error: %s( ) prototype mismatch: %zu args "
					  "passed, 1 expected", call->loc.file, call->loc.line,
					  call->loc.col, fn, call->arg_cnt);
		return -1;
	}
	if (dl_node_is_action(call->args[0])) {
		/* DTrace types an action void: trace() and exit() say so as DTrace does */
		*ret_err = cs__at_err(call->args[0], !strcmp(fn, "trace")
			? udt__xstrdup("trace( ) may not be applied to a void expression")
			: udt__xstrdup("exit( ) argument #1 is incompatible with prototype:\n"
				       "\tprototype: int\n\t argument: void"));
		return -1;
	}
	if (!strcmp(fn, "exit")) {
		if (dl_compile(t->prog, call->args[0], ctx, &a.difo, ret_err))
			return -1;
		if (cs__check_difo(t, &a.difo, call, ret_err)) {
			dl_difo_free(&a.difo);
			return -1;
		}
		if (a.difo.is_string || a.difo.copyinstr) {
			*ret_err = udt__xasprintf("%s:%d:%d: error: exit( ) argument #1 is "
						  "incompatible with prototype", call->loc.file,
						  call->loc.line, call->loc.col);
			dl_difo_free(&a.difo);
			return -1;
		}
		a.kind = CS_ACT_EXIT;
		a.size = 4;
		a.off = e->rec_size;
		e->rec_size += 8;
	} else {
		bool done;
		if (cs__trace_object(t, e, call, ctx, &done, ret_err))
			return -1;
		if (done)
			return 0;
		if (cs__compile_value(t, e, call->args[0], call, ctx, &a, ret_err))
			return -1;
	}
	UDT__PUSH(e->acts, e->act_cnt, e->act_cap, a);
	return 0;
}

void cs__ecb_free(struct cs_ecb *e)
{
	dl_difo_free(&e->pred);
	for (size_t i = 0; i < e->act_cnt; i++) {
		dl_difo_free(&e->acts[i].difo);
		free(e->acts[i].aggvars);
		if (e->acts[i].pf) {
			out_printf_free(e->acts[i].pf);
			free(e->acts[i].pf);
		}
	}
	free(e->acts);
	if (e->out)
		free(e->out->fields);
	free(e->out);
}

/* The actions of clause cl into e (its ECB): 0, or -1 with *ret_err (e then holds what the
   statements before the failing one built). */
static int compile_acts(struct cs_trace *t, const struct dl_clause *cl,
			const struct dl_probe_ctx *ctx, struct cs_ecb *e, char **ret_err)
{
	for (size_t i = 0; i < cl->stmt_cnt; i++) {
		const struct dl_stmt *s = cl->stmts[i];

		if (s->kind == DL_S_EMPTY)
			continue;
		if (s->kind == DL_S_EXPR && s->expr->kind == DL_N_BINARY && s->expr->op == '=' &&
		    (s->expr->a->kind == DL_N_AGG ||
		     (s->expr->a->kind == DL_N_INDEX && s->expr->a->a->kind == DL_N_AGG))) {
			if (cs__agg_compile(t, e, s->expr, ctx, ret_err)) {
				return -1;
			}
			continue;
		}
		/* an assignment, or an expression alone: evaluated, nothing recorded (DTrace's
		   DIFEXPR action of a void type, dt_compile_exp()): "*p;" faults, "x;" traces
		   nothing */
		if (s->kind == DL_S_EXPR && (dl_node_is_effect(s->expr) ||
					     (s->expr->kind != DL_N_CALL && !cs__is_agg_node(s->expr)))) {
			struct cs_action a = { .kind = CS_ACT_STMT };
			if (dl_compile(t->prog, s->expr, ctx, &a.difo, ret_err) ||
			    cs__check_difo(t, &a.difo, s->expr, ret_err)) {
				dl_difo_free(&a.difo);
				return -1;
			}
			UDT__PUSH(e->acts, e->act_cnt, e->act_cap, a);
			continue;
		}
		if (s->kind == DL_S_EXPR && cs__is_agg_node(s->expr)) {
			*ret_err = cs__agg_alone(t, s->expr);
			return -1;
		}
		if (s->kind != DL_S_EXPR) {
			*ret_err = udt__xasprintf("%s:%d:%d: error: this statement is not supported",
						  s->loc.file, s->loc.line, s->loc.col);
			return -1;
		}
		if (compile_action(t, e, s->expr, ctx, ret_err)) {
			return -1;
		}
	}
	return 0;
}

/* The predicate of clause cl into e: 0, 1 (a constant false: the clause never fires), or -1
   with *ret_err. */
static int compile_pred(struct cs_trace *t, const struct dl_clause *cl,
			const struct dl_probe_ctx *ctx, struct cs_ecb *e, char **ret_err)
{
	if (!cl->predicate)
		return 0;
	if (dl_compile(t->prog, cl->predicate, ctx, &e->pred, ret_err))
		return -1;
	e->has_pred = true;
	if (cs__check_difo(t, &e->pred, cl->predicate, ret_err))
		return -1;
	if (e->pred.is_string) {
		*ret_err = udt__xasprintf("%s:%d:%d: error: predicate result must be of scalar type",
					  cl->predicate->loc.file, cl->predicate->loc.line,
					  cl->predicate->loc.col);
		return -1;
	}
	return e->pred.is_const && !e->pred.const_val;
}

/*
 * Compile clause cl for probe pr: an ECB appended to t's, unless its predicate is
 * constant and false. With declare, only for what compiling does to the program (its
 * variables are declared, its aggregations' keys typed, speculations and destructive
 * actions noted): the whole clause is compiled, whatever its predicate, and no ECB is
 * kept. The actions are compiled before the predicate, as illumos's dt_cook_clause()
 * cooks them, so that a variable the actions assign first is known to the predicate
 * (the toolkit's "/self->last/ { ...; self->last = timestamp; }"); where the actions
 * use a variable the predicate assigns first ("/i++ >= 2/ { trace(i); }"), they are
 * compiled again after it, as illumos tries again.
 */
static int compile_ecb(struct cs_trace *t, const struct dl_clause *cl, struct pb_probe *pr,
		       const struct dl_probe_ctx *ctx, bool declare, char **ret_err)
{
	struct cs_ecb e = { .probe = pr, .clause = cl };
	char *err = NULL;
	const char *tag;
	int never;

	t->cur_probe = pr;
	if (cs__spec_check_clause(t, cl, ret_err))
		return -1;
	if (pr->prof_kind && cs__prof_check_clause(cl, pr, ret_err))
		return -1;
	if (compile_acts(t, cl, ctx, &e, &err)) {
		if (!cl->predicate || !err || !(tag = dl_errtag(err)) || strcmp(tag, "D_IDENT_UNDEF")) {
			*ret_err = err;
			cs__ecb_free(&e);
			return -1;
		}
		free(err);
		cs__ecb_free(&e);
		e = (struct cs_ecb){ .probe = pr, .clause = cl };
		if ((never = compile_pred(t, cl, ctx, &e, ret_err)) < 0 ||
		    compile_acts(t, cl, ctx, &e, ret_err)) {
			cs__ecb_free(&e);
			return -1;
		}
	} else if ((never = compile_pred(t, cl, ctx, &e, ret_err)) < 0) {
		cs__ecb_free(&e);
		return -1;
	}
	if (never && !declare) {
		cs__ecb_free(&e);
		return 0; /* never true for this probe: no ECB */
	}
	if (declare) {
		cs__ecb_free(&e);
		return 0;
	}
	cs__ecb_describe(t, &e);
	e.epid = (uint32_t)t->ecb_cnt + 1;
	UDT__PUSH(t->ecbs, t->ecb_cnt, t->ecb_cap, e);
	return 0;
}

/* A probe description that matches nothing: no names, no args[]. */
static const struct pb_probe no_probe = { .prov = (char *)"", .mod = "", .func = "",
					  .name = (char *)"" };

/* What the compiler knows of probe pr: the constants of its probe variables, its args[]. */
static struct dl_probe_ctx probe_ctx(struct cs_trace *t, const struct pb_probe *pr)
{
	return (struct dl_probe_ctx){
		.prov = pr->prov, .mod = pr->mod, .func = pr->func, .name = pr->name,
		/* compiled code keeps pointers to it: t's lifetime; ERROR's are the target's
		   (where most faults are: docs/d-language.md) */
		.execname = !pb_runs_here(pr) || (pr->id == PB_PROBE_ERROR && t->proc)
				    ? t->execname
				    : "dtrace",
		.probe = pr->dprobe,
		.id = pr->id,
		/* $target: -p's or -c's process, whichever process the clause runs in (its
		   forks, the processes a description without either found: docs/processes.md) */
		.pid = cs__lead(t)->proc && pr->prof_kind != UDT_PROF_TICK
			       ? (int)cs__lead(t)->proc->pid
			       : (int)getpid(),
		.strsize = t->o.strsize,
	};
}

int cs__compile_probe(struct cs_trace *t, const struct dl_clause *cl, struct pb_probe *pr,
		      char **ret_err)
{
	struct dl_probe_ctx ctx = probe_ctx(t, pr);

	return compile_ecb(t, cl, pr, &ctx, false, ret_err);
}

/*
 * Compile, to declare what it declares, a clause for which no ECB was made:
 * its predicate is false for every probe it matched (first, the first of
 * them), or it matched none (-Z: first is NULL) and may match probes that
 * appear later (docs/runtime.md, "Libraries loaded after the attach").
 * Its variables then have their places in the session's layout, which is
 * fixed when the session starts. An error is the script's with a probe;
 * without one, the clause is compiled as DTrace compiles a description that
 * matches nothing (no args[]), and an error is not reported: it may need
 * the types of the probe that appears, and its variables are then checked
 * when it does (late.c).
 */
static int declare_clause(struct cs_trace *t, const struct dl_clause *cl, struct pb_probe *first,
			  char **ret_err)
{
	static struct pb_probe none = { .prov = (char *)"", .mod = "", .func = "",
					.name = (char *)"" };
	struct dl_probe_ctx ctx = probe_ctx(t, first ? first : &none);
	char *err = NULL;

	if (!first) {
		/* (a -Z clause that matched nothing yet: its errors are errors, as DTrace's, but
		   for args[], whose types come with the probe it will match) */
		ctx.execname = t->execname;
		ctx.pid = cs__lead(t)->proc ? (int)cs__lead(t)->proc->pid : (int)getpid();
		const char *tag;
		if (compile_ecb(t, cl, &none, &ctx, true, &err) && err &&
		    (!(tag = dl_errtag(err)) || strcmp(tag, "D_ARGS_NONE"))) {
			*ret_err = err;
			return -1;
		}
		free(err);
		return 0;
	}
	return compile_ecb(t, cl, first, &ctx, true, ret_err);
}


/*
 * The target's ECBs first (the ones the target sees, numbered from 1), then
 * BEGIN's and END's, each in the script's order; their EPIDs follow. The
 * ECBs of probes that appear later are numbered after all of them (late.c).
 */
void cs__order_ecbs(struct cs_trace *t)
{
	struct cs_ecb *v = udt__xcalloc(t->ecb_cnt + 1, sizeof(*v));
	size_t n = 0;

	for (int group = 0; group < 3; group++) {
		for (size_t i = 0; i < t->ecb_cnt; i++) {
			const struct pb_probe *pr = t->ecbs[i].probe;
			bool local = pb_runs_here(pr);
			int g = !local ? 0 : !strcmp(pr->name, "BEGIN") ? 1 : 2;
			if (g != group)
				continue;
			v[n] = t->ecbs[i];
			v[n].epid = (uint32_t)n + 1;
			v[n].local = local;
			t->error_clauses |= pr->id == PB_PROBE_ERROR;
			n++;
		}
	}
	free(t->ecbs);
	t->ecbs = v;
	t->ecb_cap = t->ecb_cnt + 1;
}

int cs_trace_open(struct cs_trace **ret, struct dl_program *prog, struct pr_proc *proc,
		  const struct cs_opts *o, FILE *out, char **ret_err)
{
	struct cs_trace *t = udt__xcalloc(1, sizeof(*t));
	size_t cl_cnt;
	struct dl_clause *const *cls = dl_program_clauses(prog, &cl_cnt);

	t->prog = prog;
	t->proc = proc;
	t->o = *o;
	t->out = out;
	/* (its exit wakes dtrace's wait: cs_trace_wait()) */
	t->pidfd = proc ? (int)syscall(SYS_pidfd_open, proc->pid, 0) : -1;
	if (out_open(&t->output, out, &t->o.out, ret_err))
		goto fail;
	udt__clock_start(&t->clock_start);
	pb_probes_load(&t->probes, proc);
	if (proc)
		(void)pr_proc_execname(proc, t->execname, sizeof(t->execname));
	t->output.pid = proc ? (int)proc->pid : 0;
	t->output.execname = t->execname;
	if (cs__agg_declare(t, ret_err))
		goto fail;
	/* the inlines and translators, as DTrace checks them where they are declared */
	struct dl_probe_ctx none = probe_ctx(t, &no_probe);
	none.execname = t->execname;
	if (dl_check_decls(prog, &none, ret_err))
		goto fail;
	/* the profile provider's probes the clauses name, made before any ECB points to a probe */
	for (size_t c = 0; c < cl_cnt; c++) {
		for (size_t d = 0; d < cls[c]->pdesc_cnt; d++) {
			const char *desc = cls[c]->pdescs[d];
			int made = pb_probes_add_profile(&t->probes, desc, proc != NULL, ret_err);
			if (made < 0)
				goto fail;
			if (made && !proc && strncmp(name_of(desc), "tick-", 5)) {
				*ret_err = udt__xasprintf("invalid probe specifier %s: the profile "
							  "provider samples a process: use -p PID or "
							  "-c CMD", desc);
				goto fail;
			}
			/* and the pid provider's (docs/pid.md) */
			if (pb_probes_add_pid(&t->probes, proc, desc, ret_err) < 0)
				goto fail;
		}
	}

	/* in the order of the script, which is the order D declares its variables in */
	for (size_t c = 0; c < cl_cnt; c++) {
		const struct dl_clause *cl = cls[c];
		struct pb_probe *first = NULL;

		for (size_t d = 0; d < cl->pdesc_cnt; d++) {
			const char *desc = cl->pdescs[d];
			size_t matched = 0;

			for (size_t i = 0; i < t->probes.cnt; i++) {
				struct pb_probe *pr = &t->probes.v[i];
				if (!pb_desc_match(desc, pr))
					continue;
				if (cs__compile_probe(t, cl, pr, ret_err))
					goto fail;
				if (!first)
					first = pr;
				matched++;
			}
			/* (-Z: it may match the probes of a library loaded later) */
			t->zdefs_unmatched |= !matched && proc;
			uint32_t id;
			if (!matched && pb_desc_id(desc, &id)) {
				/* DTrace's D_PDESC_INVAL, -Z or not: no probe takes the ID later */
				*ret_err = udt__xasprintf("invalid probe specifier %s: invalid probe "
							  "identifier %s: Unknown probe identifier",
							  desc, desc);
				goto fail;
			}
			/* (-Z: a kernel provider's will never match: said) */
			if (!matched && t->o.zdefs && pb_desc_kernel_provider(desc)) {
				char *why = pb_desc_nomatch(desc);
				fprintf(stderr, "dtrace: %s\n", why);
				free(why);
			}
			/* (no process given: it may match in another process, found next) */
			if (!matched && t->o.every_process)
				continue;
			if (!matched && !t->o.zdefs) {
				char *why = pb_desc_nomatch(desc);
				*ret_err = udt__xasprintf("invalid probe specifier %s: %s", desc, why);
				free(why);
				goto fail;
			}
		}
		/* a clause no ECB was made of: compiled for its declarations, in its turn */
		if (!cs_trace_clause_matches(t, cl) && declare_clause(t, cl, first, ret_err))
			goto fail;
	}
	/* as DTrace's dtrace_program_exec(): refused before the probes are counted as matched;
	   -e enables nothing, so it needs no -w (DTrace's -e does not exec the program) */
	if (!t->o.compile_only && cs__act_check_destructive(t, ret_err))
		goto fail;
	cs__order_ecbs(t);
	if (cs__vars_open(t, ret_err))
		goto fail;
	/* no process given: every process the descriptions match is a member (group.c); a
	   CTF trace's event classes are one process's ECBs (and its forks', which share them) */
	if (t->o.every_process && t->o.out.ctfdir[0]) {
		*ret_err = udt__xstrdup("failed to set -x ctfdir: a CTF trace is of -p's or -c's "
					"process and its forks");
		goto fail;
	}
	if (t->o.every_process && !t->o.compile_only && cs__group_open_all(t, ret_err))
		goto fail;
	*ret = t;
	return 0;
fail:
	cs_trace_close(t);
	return -1;
}

size_t cs_trace_clause_matches(const struct cs_trace *t, const struct dl_clause *cl)
{
	size_t n = 0;

	for (size_t i = t->ecb_borrowed; i < t->ecb_cnt; i++)
		n += t->ecbs[i].clause == cl;
	/* (the lead's counts every process's) */
	return n + (t->lead ? 0 : cs__group_matches(t, cl));
}

/* -- The enabling area ---------------------------------------------------------------------- */

uint32_t cs__area_put(struct cs_area *a, const void *p, size_t sz)
{
	size_t off = (a->used + 7) & ~(size_t)7;

	if (a->overflow || off + sz > UDT_AREA_SZ) {
		a->overflow = true;
		return 0;
	}
	memcpy(a->buf + off, p, sz);
	a->used = off + sz;
	return (uint32_t)off;
}

bool cs__addrs_has(const struct cs_addrs *l, uint64_t x)
{
	for (size_t i = 0; i < l->cnt; i++)
		if (l->v[i] == x)
			return true;
	return false;
}

void cs__addrs_add(struct cs_addrs *l, uint64_t x)
{
	if (!cs__addrs_has(l, x))
		UDT__PUSH(l->v, l->cnt, l->cap, x);
}

/* The DIFO of value action ca in the area: its code, or one that returns its constant. */
static uint32_t difo_src(struct cs_area *a, const struct cs_action *ca)
{
	if (!ca->difo.is_const)
		return cs__area_put(a, ca->difo.bytes, ca->difo.sz);
	/* a constant: a one-instruction DIFO keeps the runtime simple */
	struct {
		struct udt_difo h;
		struct udt_insn i[2];
		uint64_t c;
	} k1 = { { sizeof(struct udt_difo), 2, 1, 0, 0, 0 },
		 { { UDT_OP_LDC, 0, 0, 0, 0 }, { UDT_OP_RET, 0, 0, 0, 0 } },
		 (uint64_t)ca->difo.const_val };
	return cs__area_put(a, &k1, sizeof(k1));
}

/* The runtime's form of value action ca (not a constant string). */
static struct udt_action runtime_action(struct cs_area *a, const struct cs_action *ca)
{
	struct udt_action ua = {
		.kind = ca->kind == CS_ACT_EXIT ? UDT_ACT_EXIT : UDT_ACT_TRACE,
		.size = 8,
		.off = ca->off,
	};

	if (ca->kind == CS_ACT_USTACK) {
		ua.kind = UDT_ACT_USTACK;
		ua.src = ca->nframes;
		ua.size = ca->nframes * 8;
	} else if (ca->kind == CS_ACT_TRACE_STR && ca->difo.direct_arg >= 0) {
		ua.kind = UDT_ACT_TRACE_ARGSTR; /* copyinstr(argN): no DIFO to run */
		ua.size = ca->size;
		ua.src = (uint32_t)ca->difo.direct_arg;
	} else if (ca->kind == CS_ACT_TRACE_STR) {
		ua.kind = UDT_ACT_TRACE_STR;
		ua.size = ca->size;
		ua.src = cs__area_put(a, ca->difo.bytes, ca->difo.sz);
	} else if (ca->kind == CS_ACT_TRACE && ca->difo.direct_arg >= 0) {
		ua.kind = UDT_ACT_TRACE_ARG;
		ua.src = (uint32_t)ca->difo.direct_arg;
	} else if (ca->kind == CS_ACT_TRACE && ca->difo.direct_var >= 0) {
		ua.kind = UDT_ACT_TRACE_VAR;
		ua.src = (uint32_t)ca->difo.direct_var;
	} else {
		ua.src = difo_src(a, ca);
	}
	return ua;
}

/* An aggregating action: its descriptor, key actions and value in the area. */
static struct udt_action agg_action(struct cs_area *a, const struct cs_aggact *ag)
{
	const struct out_aggvar *v = ag->var;
	struct udt_aggdesc ad = {
		.size = sizeof(ad),
		.aggid = ag->aggid,
		.func = v->func,
		.key_size = ag->key_size,
		.lq_base = v->lq_base,
		.lq_step = v->lq_step,
		.lq_levels = v->lq_levels,
		.llq_factor = v->llq_factor,
		.llq_low = v->llq_low,
		.llq_high = v->llq_high,
		.llq_nsteps = v->llq_nsteps,
	};
	struct udt_action *keys = udt__xcalloc(ag->nkeys + 1, sizeof(*keys));

	for (size_t k = 0; k < ag->nkeys; k++)
		if (ag->keys[k].kind != CS_ACT_TRACE_CONST)
			keys[ad.key_cnt++] = runtime_action(a, &ag->keys[k]);
	ad.key_off = cs__area_put(a, keys, (ad.key_cnt ? ad.key_cnt : 1) * sizeof(*keys));
	free(keys);
	if (ag->has_val)
		ad.val = runtime_action(a, &ag->val);
	if (ag->has_incr)
		ad.incr = runtime_action(a, &ag->incr);
	return (struct udt_action){ .kind = UDT_ACT_AGG, .src = cs__area_put(a, &ad, sizeof(ad)) };
}

void cs__area_put_ecbs(struct cs_trace *t, struct cs_area *a, const size_t *idx, size_t n,
		       struct cs_addrs *sems, struct cs_addrs *disps, struct cs_ecbs_at *ret)
{
	struct udt_ecb *ecbs = udt__xcalloc(n + 1, sizeof(*ecbs));
	uint32_t bits = 1;

	/* the hash: at least twice as many slots as ECBs */
	while ((1u << bits) < 2 * n + 2)
		bits++;
	uint32_t *hash = udt__xcalloc(1u << bits, 4);

	ret->ecb_cnt = (uint32_t)n;
	ret->hash_bits = bits;
	ret->ecb_off = cs__area_put(a, ecbs, (n ? n : 1) * sizeof(*ecbs)); /* filled in below */
	for (size_t i = 0; i < n; i++) {
		struct cs_ecb *e = &t->ecbs[idx[i]];
		struct udt_ecb *u = &ecbs[i];
		struct udt_action *acts = udt__xcalloc(e->act_cnt + 1, sizeof(*acts));
		size_t na = 0;

		u->size = sizeof(*u);
		u->epid = e->epid;
		u->sem = e->probe->sem;
		u->pc_lo = e->probe->pc_lo;
		u->pc_hi = e->probe->pc_hi;
		u->rec_size = e->rec_size;
		if (e->has_pred && !e->pred.is_const) {
			u->pred = cs__area_put(a, e->pred.bytes, e->pred.sz);
			if (udt_difo_is_light((const void *)e->pred.bytes))
				u->flags |= UDT_ECB_LIGHTPRED;
		}
		bool silent = e->act_cnt > 0;
		for (size_t k = 0; k < e->act_cnt; k++) {
			struct cs_action *ca = &e->acts[k];
			silent &= cs_act_silent(ca->kind);
			if (ca->kind == CS_ACT_AGG) {
				acts[na++] = agg_action(a, ca->agg);
				continue;
			}
			if (ca->kind == CS_ACT_STMT) {
				/* (a constant alone, "1;", is a DIFO of its own too) */
				acts[na++] = (struct udt_action){ .kind = UDT_ACT_DIFO,
								  .src = difo_src(a, ca) };
				continue;
			}
			if (ca->kind == CS_ACT_SPECULATE || ca->kind == CS_ACT_COMMIT ||
			    ca->kind == CS_ACT_DISCARD) {
				acts[na++] = (struct udt_action){
					.kind = ca->kind == CS_ACT_SPECULATE ? UDT_ACT_SPECULATE
						: ca->kind == CS_ACT_COMMIT ? UDT_ACT_COMMIT
									    : UDT_ACT_DISCARD,
					.src = difo_src(a, ca),
				};
				if (ca->kind == CS_ACT_SPECULATE)
					u->flags |= UDT_ECB_SPEC;
				continue;
			}
			if (ca->kind == CS_ACT_RAISE || ca->kind == CS_ACT_CHILL) {
				acts[na++] = (struct udt_action){
					.kind = ca->kind == CS_ACT_RAISE ? UDT_ACT_RAISE : UDT_ACT_CHILL,
					.src = difo_src(a, ca),
				};
				continue;
			}
			if (ca->kind == CS_ACT_TRACEMEM) {
				acts[na++] = (struct udt_action){
					.kind = UDT_ACT_TRACEMEM,
					.src = difo_src(a, ca),
					.size = ca->size,
					.off = ca->off,
				};
				continue;
			}
			if (ca->kind == CS_ACT_TRACE_CONST || ca->kind == CS_ACT_PRINTF || ca->from_hdr ||
			    ca->aggvar || ca->kind == CS_ACT_SYSTEM || ca->kind == CS_ACT_SETOPT)
				continue; /* the consumer's alone */
			acts[na++] = runtime_action(a, ca);
		}
		if (silent && !e->rec_size && !(u->flags & UDT_ECB_SPEC))
			u->flags |= UDT_ECB_NOREC;
		u->act_cnt = (uint32_t)na;
		if (udt_ecb_is_direct(u, acts))
			u->flags |= UDT_ECB_DIRECT | (udt_ecb_is_args(u, acts) ? UDT_ECB_ARGS : 0);
		else if (udt_ecb_is_direct_agg(u, acts, a->buf))
			u->flags |= UDT_ECB_DIRECT_AGG;
		else if (udt_ecb_is_direct_str(u, acts))
			u->flags |= UDT_ECB_DIRECT_STR;
		u->act_off = cs__area_put(a, acts, (na ? na : 1) * sizeof(*acts));
		free(acts);
		/* chain ECBs of one semaphore in index order (forward, as the runtime checks) */
		uint32_t slot = udt_sem_hash(u->sem, bits), mask = (1u << bits) - 1;
		while (hash[slot] && ecbs[hash[slot] - 1].sem != u->sem)
			slot = (slot + 1) & mask;
		if (!hash[slot]) {
			hash[slot] = (uint32_t)i + 1;
		} else {
			struct udt_ecb *last = &ecbs[hash[slot] - 1];
			while (last->next)
				last = &ecbs[last->next - 1];
			last->next = (uint32_t)i + 1;
		}
		if (e->probe->prof_kind)
			continue; /* keyed, fired by the runtime's timers: no semaphore to set */
		if (e->probe->notes && !e->probe->pt)
			continue; /* keyed by a site: their semaphores come with their sites (sites.c) */
		if (e->probe->pid_kind)
			continue; /* keyed by an instruction (UDT_PID_KEY()), no semaphore: sites.c */
		cs__addrs_add(sems, u->sem);
		cs__addrs_add(disps, e->probe->dispatch);
	}
	if (!a->overflow)
		memcpy(a->buf + ret->ecb_off, ecbs, n * sizeof(*ecbs));
	ret->hash_off = cs__area_put(a, hash, (size_t)4 << bits);
	free(ecbs);
	free(hash);
}

uint32_t cs__area_put_list(struct cs_area *a, const struct cs_addrs *l)
{
	uint64_t none = 0;

	return cs__area_put(a, l->cnt ? (const void *)l->v : &none, (l->cnt ? l->cnt : 1) * 8);
}

/*
 * Lay generation 0 out in the session's area (t->img): the header, the
 * target ECBs, BEGIN's globals and speculations, the undo lists. -1 (with a
 * message) when it does not fit.
 */
static int build_area(struct cs_trace *t, char **ret_err)
{
	struct cs_area *a = &t->img;
	struct udt_area_hdr h = { .size = sizeof(h) };
	size_t *idx = udt__xcalloc(t->ecb_cnt + 1, sizeof(*idx)), n = 0;
	struct cs_addrs sems = { 0 }, disps = { 0 };
	struct cs_ecbs_at at;

	for (size_t i = 0; i < t->ecb_cnt; i++)
		if (!t->ecbs[i].local)
			idx[n++] = i;
	a->buf = udt__xcalloc(1, UDT_AREA_SZ);
	h.nlocals = (uint32_t)dl_program_var_count(t->prog, DL_VAR_LOCAL);
	h.ngvars = (uint32_t)dl_program_var_count(t->prog, DL_VAR_GLOBAL);
	cs__area_put(a, &h, sizeof(h));
	cs__area_put_ecbs(t, a, idx, n, &sems, &disps, &at);
	free(idx);
	h.ecb_cnt = at.ecb_cnt;
	h.ecb_off = at.ecb_off;
	h.hash_bits = at.hash_bits;
	h.hash_off = at.hash_off;
	/* the global variables as BEGIN left them: the target's start from these */
	uint64_t none = 0;
	struct cs_trace *lead = cs__lead(t);
	uint64_t *gv = udt__xcalloc(h.ngvars + 1, 8);
	memcpy(gv, lead->local_gvars ? lead->local_gvars : gv,
	       (h.ngvars < lead->local_ngvars ? h.ngvars : lead->local_ngvars) * 8);
	h.gvar_off = cs__area_put(a, gv, h.ngvars ? (size_t)h.ngvars * 8 : 8);
	free(gv);
	/* the speculations: their size, and those BEGIN handed out */
	if (t->spec_used) {
		size_t sz = sizeof(struct udt_area_spec) + (size_t)t->o.nspec * 4;
		struct udt_area_spec *as = udt__xcalloc(1, sz);
		as->specsize = t->o.specsize;
		for (uint32_t i = 0; i < t->o.nspec; i++)
			as->state[i] = cs__spec_begin_state(lead, i);
		h.nspec = t->o.nspec;
		h.spec_off = cs__area_put(a, as, sz);
		free(as);
	}
	/* strings and dynamic variables: BEGIN's values too (consumer/vars.c) */
	struct udt_vars vars;
	const void *gstrs;
	void *init = NULL;
	size_t gstr_sz, init_sz;
	if (cs__vars_image(lead, &vars, &gstrs, &gstr_sz, &init, &init_sz)) {
		vars.gstr_off = cs__area_put(a, gstr_sz ? gstrs : &none, gstr_sz ? gstr_sz : 8);
		vars.init_off = cs__area_put(a, init_sz ? init : &none, init_sz ? init_sz : 8);
		h.vars_off = cs__area_put(a, &vars, sizeof(vars));
		free(init);
	}
	/* the SystemTap sites to patch, and their semaphores */
	h.sites_off = cs__sites_put(t, a, &sems);
	/* (a session of profile probes only sets no semaphore) */
	struct cs_gen g0 = { .sem_cnt = (uint32_t)sems.cnt, .disp_cnt = (uint32_t)disps.cnt,
			     .ecb_end = (uint32_t)t->ecb_cnt };
	h.sem_cnt = g0.sem_cnt;
	h.sem_off = g0.sem_off = cs__area_put_list(a, &sems);
	h.disp_cnt = g0.disp_cnt;
	h.disp_off = g0.disp_off = cs__area_put_list(a, &disps);
	free(sems.v);
	free(disps.v);
	struct udt_prof prof[UDT_PROF_MAX];
	h.prof_cnt = (uint32_t)cs__prof_table(t, prof);
	if (h.prof_cnt)
		h.prof_off = cs__area_put(a, prof, h.prof_cnt * sizeof(prof[0]));
	h.prof_flags = t->o.prof_clock == CS_PROFCLOCK_TIMER  ? UDT_PROF_F_TIMER
		       : t->o.prof_clock == CS_PROFCLOCK_PERF ? UDT_PROF_F_PERF
							    : 0;
	h.used = (uint32_t)a->used;
	memcpy(a->buf, &h, sizeof(h));
	if (a->overflow) {
		*ret_err = udt__xasprintf("the enablings do not fit in the target's %u KB of "
					  "enabling space", UDT_AREA_SZ / 1024);
		return -1;
	}
	UDT__PUSH(t->gens, t->gen_cnt, t->gen_cap, g0);
	return 0;
}

/* -- The session ------------------------------------------------------------------------------ */

static int wr32(struct cs_trace *t, uint64_t addr, uint32_t v)
{
	return pr_proc_write(t->proc, addr, &v, sizeof(v));
}

static int wr64(struct cs_trace *t, uint64_t addr, uint64_t v)
{
	return pr_proc_write(t->proc, addr, &v, sizeof(v));
}

static bool have_membarrier(void)
{
	long q = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);

	return q > 0 && (q & MEMBARRIER_CMD_GLOBAL);
}

int cs__size_buffers(struct cs_trace *t, bool *ret_target, char **ret_err)
{
	bool target = false;

	/* bufsize holds the largest record the target makes (an ECB's, or a fault's), and the
	   runtime's least (64 bytes): DTrace's records start with a 4-byte EPID, ours with a
	   24-byte header, so a size that holds DTrace's record is raised to hold ours */
	uint64_t need = 64;
	for (size_t i = 0; i < t->ecb_cnt; i++) {
		target |= !t->ecbs[i].local;
		if (!t->ecbs[i].local && sizeof(struct udt_rec) + t->ecbs[i].rec_size > need)
			need = sizeof(struct udt_rec) + t->ecbs[i].rec_size;
	}
	if (t->o.policy == UDT_POLICY_RING)
		need = (need + 127) & ~127ull; /* (the runtime's ring is whole 128-byte chunks) */
	if (t->o.bufsize < need)
		t->o.bufsize = need;
	/* fill: DTrace reserves room for END's records, and refuses what cannot fit */
	if (t->o.policy == UDT_POLICY_FILL) {
		uint64_t end_sz = 0;
		for (size_t i = 0; i < t->ecb_cnt; i++)
			if (t->ecbs[i].local && !strcmp(t->ecbs[i].probe->name, "END"))
				end_sz += sizeof(struct udt_rec) + t->ecbs[i].rec_size;
		if (end_sz > t->o.bufsize) {
			*ret_err = udt__xstrdup("END enablings exceed size of principal buffer");
			return -1;
		}
	}
	*ret_target = target;
	return 0;
}

int cs__session_check(struct cs_trace *t, char **ret_err)
{
	char *why = NULL;

	if (pr_runtime_check(t->proc, &why) ||
	    pr_proc_lookup(t->proc, "udt__control", &t->ctlblk, NULL) ||
	    pr_proc_lookup(t->proc, "udt__fire", &t->fire, NULL)) {
		*ret_err = udt__xasprintf("failed to enable probes in pid %d: %s", (int)t->proc->pid,
					  why ? why : "its udtrace runtime has no udt__fire");
		free(why);
		return -1;
	}
	/* a slot for the session (before BEGIN runs: a process with no room says so first) */
	return cs__slot_check(t, ret_err);
}

int cs_trace_start(struct cs_trace *t, char **ret_err)
{
	bool target;

	if (cs__size_buffers(t, &target, ret_err))
		return -1;
	/* -Z and a description that matched nothing yet: a session, to enable the probes
	   that appear (if the process has a runtime to register them) */
	target |= t->zdefs_unmatched && !pr_proc_lookup(t->proc, "udt__control", &t->ctlblk, NULL);
	if (target && cs__session_check(t, ret_err))
		return -1;
	cs__out_declare(t);
	out_start(&t->output);
	/* BEGIN first, as DTrace fires it before any other probe: the target starts from
	   the global variables it set; after an exit() in BEGIN nothing is enabled */
	cs__run_begin(t);
	if (t->exited)
		return 0;
	cs__ticks_start(t);
	if (target && cs__attach(t, ret_err))
		return -1;
	/* the other processes: -p's and -c's forks, or every process the descriptions match */
	return cs__group_start(t, ret_err);
}

/* The clock's calibration every session of the trace reads (taken once, by the lead). */
static void calibration(struct cs_trace *t, struct udt_clock_cal *ret)
{
	struct cs_trace *lead = cs__lead(t);

	if (!lead->cal_done) {
		udt__clock_finish(&lead->clock_start, &lead->cal);
		lead->cal_done = true;
	}
	*ret = lead->cal;
}

/*
 * The heartbeat: now, and the deadline of the target's fires it gives (in its
 * clock's units, which the runtime compares without a conversion).
 */
static int beat(struct cs_trace *t)
{
	struct udt_clock_cal cal;
	uint64_t now = udt__now_ns(), end = now + t->o.deadman_ns;

	calibration(t, &cal);
	return wr64(t, CTL_FIELD(heartbeat_ns), now) ?:
	       wr64(t, CTL_FIELD(deadline), udt__clock_reading(&cal, end < now ? UINT64_MAX : end));
}

/* The session's flags: a session follows forks, a child keeps it, unless -x nofollowfork
   (docs/processes.md); its first fire waits for dtrace where dtrace is told of forks at once;
   in -p's or -c's process (whose registry dtrace reads every round, where a member's is
   read once a second), a table registered waits for its probes' enabling (late.c) */
static uint32_t ctl_flags(const struct cs_trace *t)
{
	return (t->o.bufresize_manual ? 0 : UDT_CTL_BUFRESIZE) |
	       (cs__lead((struct cs_trace *)t) == t ? UDT_CTL_LOADWAIT : 0) |
	       (t->o.nofollowfork ? 0 : UDT_CTL_FOLLOW | (t->fork_wait ? UDT_CTL_FORKWAIT : 0));
}

void cs__flags_update(struct cs_trace *t)
{
	if (t->attached && !t->target_gone)
		(void)wr32(t, CTL_FIELD(flags), ctl_flags(t));
}

int cs__attach(struct cs_trace *t, char **ret_err)
{
	pid_t pid = t->proc->pid;
	int err;

	if (build_area(t, ret_err))
		return -1;

	uint32_t flags = ctl_flags(t);
	uint32_t hdr_flags = 0;
	struct udt_clock_cal cal;
	calibration(t, &cal);
	/* the slot, its area and its parameters, then its state: the runtime reads them in the
	   opposite order; the semaphores last, all with the other consumers kept out */
	if (cs__lock(t, ret_err))
		return -1;
	if (cs__slot_take(t, ret_err)) {
		cs__unlock(t);
		return -1;
	}
	err = pr_proc_read(t->proc, t->ctlblk + offsetof(struct udt_ctlblock, hdr.flags), &hdr_flags,
			   sizeof(hdr_flags));
	if (!err && !have_membarrier() && !(hdr_flags & UDT_CTL_FENCE))
		err = wr32(t, t->ctlblk + offsetof(struct udt_ctlblock, hdr.flags),
			   hdr_flags | UDT_CTL_FENCE);
	if (!err)
		err = pr_proc_write(t->proc, cs__area_addr(t), t->img.buf, t->img.used);
	uint8_t live = 1;
	if (!err)
		err = wr32(t, CTL_FIELD(pid), (uint32_t)pid) ?:
		      wr32(t, CTL_FIELD(consumer_pid), (uint32_t)getpid()) ?:
		      wr64(t, CTL_FIELD(tsc_base), cal.tsc_base) ?:
		      wr64(t, CTL_FIELD(tsc_ns), cal.tsc_ns) ?:
		      wr64(t, CTL_FIELD(tsc_mult), cal.tsc_mult) ?:
		      wr64(t, CTL_FIELD(deadman_ns), t->o.deadman_ns) ?:
		      beat(t) ?:
		      wr64(t, CTL_FIELD(bufsize), t->o.bufsize) ?:
		      /* (any aggregation of the program: one may be in a clause of probes that
			 appear later) */
		      wr64(t, CTL_FIELD(aggsize), t->aggvar_cnt ? t->o.aggsize : 0) ?:
		      wr64(t, CTL_FIELD(tvarsize), 8 * dl_program_var_count(t->prog, DL_VAR_THREAD)) ?:
		      wr32(t, CTL_FIELD(policy), t->o.policy) ?:
		      wr32(t, CTL_FIELD(flags), flags) ?:
		      wr32(t, CTL_FIELD(tbuf_max), t->o.tbuf_max) ?:
		      wr32(t, CTL_FIELD(shm_acked), 0) ?:
		      wr64(t, CTL_FIELD(lost), 0) ?: /* (the slot's previous session's count) */
		      wr32(t, CTL_FIELD(area), t->area) ?:
		      wr32(t, CTL_FIELD(session), t->session) ?:
		      wr32(t, CTL_FIELD(state), UDT_STATE_ACTIVE) ?:
		      pr_proc_write(t->proc, cs__live_addr(t), &live, 1);
	if (err) {
		cs__unlock(t);
		*ret_err = udt__xasprintf("failed to grab pid %d: %s", (int)pid, strerror(-err));
		return -1;
	}
	t->attached = true;
	t->born_ns = udt__now_ns();
	err = cs__gen_enable(t, &t->gens[0]);
	cs__unlock(t);
	cs__stack_start(t);
	if (err) {
		*ret_err = udt__xasprintf("failed to enable probes in pid %d: %s", (int)pid,
					  strerror(-err));
		return -1;
	}
	cs__late_start(t);
	return 0;
}

int cs__gen_read_lists(struct cs_trace *t, const struct cs_gen *g, uint64_t **ret_sems,
		      uint64_t **ret_disps)
{
	uint64_t base = cs__area_addr(t);
	uint64_t *sems = udt__xcalloc(g->sem_cnt + 1, 8), *disps = udt__xcalloc(g->disp_cnt + 1, 8);
	int err = pr_proc_read(t->proc, base + g->sem_off, sems, (size_t)g->sem_cnt * 8) ?:
		  pr_proc_read(t->proc, base + g->disp_off, disps, (size_t)g->disp_cnt * 8);

	if (err) {
		free(sems);
		free(disps);
		return err;
	}
	*ret_sems = sems;
	*ret_disps = disps;
	return 0;
}

int cs__gen_enable(struct cs_trace *t, const struct cs_gen *g)
{
	uint64_t *sems, *disps;
	char *why = NULL;
	int err;

	/* (the other consumers change semaphores too) */
	if (cs__lock(t, &why)) {
		free(why);
		return -EAGAIN;
	}
	err = cs__gen_read_lists(t, g, &sems, &disps);
	if (err) {
		cs__unlock(t);
		return err;
	}
	/* the dispatch pointers before the semaphores: a site that sees its semaphore set
	   must find the runtime; an address gone meanwhile (-EFAULT: its object was
	   unloaded after we read the list) is not an error */
	for (uint32_t i = 0; i < g->disp_cnt && (!err || err == -EFAULT); i++)
		err = disps[i] ? wr64(t, disps[i], t->fire) : 0;
	for (uint32_t i = 0; i < g->sem_cnt && (!err || err == -EFAULT); i++) {
		uint16_t v;
		if (!sems[i])
			continue; /* struck: its object was unloaded meanwhile */
		err = pr_proc_read(t->proc, sems[i], &v, sizeof(v));
		if (!err) {
			v++;
			err = pr_proc_write(t->proc, sems[i], &v, sizeof(v));
		}
	}
	cs__unlock(t);
	free(sems);
	free(disps);
	return err == -EFAULT ? 0 : err;
}

void cs__gen_undo(struct cs_trace *t, const struct cs_gen *g)
{
	uint64_t *sems, *disps;

	if (cs__gen_read_lists(t, g, &sems, &disps))
		return;
	cs__undo_lists(t, sems, g->sem_cnt, disps, g->disp_cnt);
	free(sems);
	free(disps);
}

/* Does the session have profile or tick probes (timers the runtime arms)? */
static bool has_prof(const struct cs_trace *t)
{
	for (size_t i = 0; i < t->ecb_cnt; i++)
		if (!t->ecbs[i].local && t->ecbs[i].probe->prof_kind)
			return true;
	return false;
}

int cs__sync_runtime(struct cs_trace *t, char **ret_why)
{
	if (cs__lock(t, ret_why))
		return -EAGAIN;
	int err = pr_inject_sync(t->proc, ret_why);
	cs__unlock(t);
	return err;
}

int cs_trace_arm(struct cs_trace *t, char **ret_err)
{
	char *why = NULL;
	pid_t pid = t->proc ? t->proc->pid : 0;

	if (!t->attached || t->target_gone)
		return 0;
	/* (one injected sync patches the sites and arms the timers both: runtime/sites.c) */
	if (cs__sites_arm(t, ret_err))
		return -1;
	if (!has_prof(t))
		return 0;
	if (cs__rd32(t, CTL_FIELD(prof_armed)) != t->session && cs__sync_runtime(t, &why) &&
	    cs__rd32(t, CTL_FIELD(prof_armed)) != t->session) {
		if (!t->gens[0].sem_cnt) {
			*ret_err = udt__xasprintf("failed to start the profile provider in pid %d: "
						  "could not run code in it to start its timers: %s",
						  (int)pid, why);
			free(why);
			return -1;
		}
		/* the session's first fire of another probe arms them (fire.c) */
		fflush(t->out);
		fprintf(stderr, "dtrace: pid %d: could not run code in it to start the profile "
			"provider's timers (%s): they start when one of its probes fires\n",
			(int)pid, why);
		free(why);
		return 0;
	}
	free(why);
	if (cs__rd32(t, CTL_FIELD(prof_armed)) != t->session) {
		int32_t e = (int32_t)cs__rd32(t, CTL_FIELD(prof_errno));
		*ret_err = udt__xasprintf("failed to start the profile provider in pid %d: %s",
					  (int)pid, e == ENOSPC ? "its sessions' profile probes would "
					  "be more than the 16 a process takes" : e > 0 ? strerror(e)
					  : "its timers could not be armed");
		return -1;
	}
	t->prof_armed = true;
	if ((cs__rd32(t, CTL_FIELD(prof_mode)) & UDT_PROF_MODE_REFUSED) && !t->o.out.quiet) {
		fflush(t->out);
		fprintf(stderr, "dtrace: pid %d may not use perf events (kernel.perf_event_paranoid): "
			"its profile probes are timed by the kernel's tick, and faster ones fire in "
			"bursts\n", (int)pid);
	}
	return 0;
}

/* End the session in the target (if it is still ours) and undo its enablings. */
void cs__detach(struct cs_trace *t)
{
	uint32_t session = 0;
	uint8_t live = 0;
	char *why = NULL;

	if (!t->attached || t->target_gone)
		return;
	t->attached = false;
	(void)beat(t);
	int err = cs__lock(t, &why);
	if (err) {
		/* the session stays live: its deadman ends it once the lock is free (or the
		   process is gone) */
		if (err != -ESRCH) {
			fflush(t->out);
			fprintf(stderr, "dtrace: %s: its probes stay enabled until its deadman\n",
				why);
		}
		free(why);
		return;
	}
	if (pr_proc_read(t->proc, cs__live_addr(t), &live, 1) ||
	    pr_proc_read(t->proc, CTL_FIELD(session), &session, sizeof(session)) ||
	    session != t->session || !live) {
		cs__unlock(t); /* the deadman (or a fork, or an exec) ended it: already undone */
		return;
	}
	live = 0;
	(void)pr_proc_write(t->proc, cs__live_addr(t), &live, 1);
	(void)wr32(t, CTL_FIELD(state), UDT_STATE_DETACHED);
	/* every generation's lists as the target holds them: objects unloaded meanwhile are
	   struck out */
	for (size_t i = t->gen_cnt; i-- > 0;)
		cs__gen_undo(t, &t->gens[i]);
	cs__unlock(t);
	/* the profile provider's timers and handler go too (a -p process runs nothing of ours
	   by itself to notice; without ptrace, its next timer signal does it); and once no
	   session is left, the memory of those that were and the fault handler, so that the
	   process is left as it was (runtime/session.c, udt__sessions_release()) */
	uint64_t lives = 1;
	(void)pr_proc_read(t->proc, t->ctlblk + offsetof(struct udt_ctlblock, hdr.lives), &lives,
			   sizeof(lives));
	if (cs__rd32(t, CTL_FIELD(prof_armed)) == t->session ||
	    (!lives && cs__rd32(t, CTL_FIELD(shm_state)) == UDT_SHM_READY)) {
		(void)cs__sync_runtime(t, &why);
		free(why);
	}
	/* the SystemTap sites' bytes (that sync restored them, unless it could not run) */
	cs__sites_detach(t);
}

void cs__heartbeat(struct cs_trace *t)
{
	if (t->attached && !t->target_gone)
		(void)beat(t);
}

void cs_trace_close(struct cs_trace *t)
{
	if (!t)
		return;
	cs__group_free(t);
	/* (a fork child's first ECBs are its parent's) */
	for (size_t i = t->ecb_borrowed; i < t->ecb_cnt; i++)
		cs__ecb_free(&t->ecbs[i]);
	free(t->ecbs);
	free(t->img.buf);
	free(t->gens);
	free(t->sites);
	cs__late_free(t);
	free(t->fill_pos);
	free(t->pending);
	free(t->recs);
	for (size_t i = 0; i < t->rec_copy_cnt; i++)
		free(t->rec_copies[i]);
	free(t->rec_copies);
	free(t->tmarks);
	free(t->local_tvars);
	free(t->local_gvars);
	cs__vars_close(t);
	cs__agg_free(t);
	cs__spec_free(t);
	cs__ticks_free(t);
	cs__agg_cur_free(t);
	pr_syms_free(t->syms);
	out_close(&t->output);
	pb_probes_free(&t->probes);
	if (t->lead && t->proc)
		pr_proc_close(t->proc);
	if (!t->lead && t->pidfd >= 0)
		close(t->pidfd);
	free(t);
}
