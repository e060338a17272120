/* SPDX-License-Identifier: MIT */
/*
 * tracemem(), raise(), stop(), chill(), system() and setopt(): compiled with
 * DTrace's checks and messages, and what dtrace does with their records.
 *
 * tracemem(addr, size[, dynsize]) copies size bytes of the process into the
 * record (fault-safe, in the target) and prints them as DTrace does, as a
 * hex dump; dynsize, if given, is recorded after them and prints that many
 * at most. raise(sig) runs in the target: the signal goes to the thread that
 * fired when the fire is over; stop() is raise(SIGSTOP); chill(ns) spins the
 * thread. system(format, ...) formats as printf() does and runs the command
 * with /bin/sh when dtrace reads the record, after flushing what it printed
 * before. All are destructive (and copyout(), copyoutstr(): enable.c):
 * without -w (or -x destructive) tracing does not start. setopt(name[, value]) sets an option
 * when dtrace reads the record: those DTrace lets a running trace change.
 */
#include "consumer/internal.h"
#include "util/util.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

bool cs__act_is_more(const char *fn)
{
	return !strcmp(fn, "tracemem") || !strcmp(fn, "raise") || !strcmp(fn, "system") ||
	       !strcmp(fn, "setopt") || !strcmp(fn, "stop") || !strcmp(fn, "chill");
}

static const char *plural(size_t n)
{
	return n == 1 ? "" : "s";
}

/* What a compiled value is, for messages. */
static const char *type_name(struct cs_trace *t, const struct cs_action *a)
{
	if (a->kind == CS_ACT_TRACE_STR || a->is_str)
		return "string";
	return dl_type_cdecl(t->prog, a->difo.type, NULL);
}

static bool is_integer(const struct cs_action *a)
{
	return a->kind != CS_ACT_TRACE_STR && !a->is_str &&
	       dl_type_argclass(a->difo.type) == DL_ARG_INT;
}

/* The largest tracemem(): a record's data must stay under the runtime's 1 MB. */
#define TRACEMEM_MAX (1u << 19)

static int compile_tracemem(struct cs_trace *t, struct cs_ecb *e, const struct dl_node *call,
			    const struct dl_probe_ctx *ctx, char **ret_err)
{
	struct cs_action a = { 0 }, n = { 0 }, dyn = { .pf_value = true };
	const struct dl_node *at = NULL;
	char *msg = NULL;

	if (call->arg_cnt < 2) {
		*ret_err = cs__at_err(call, udt__xasprintf("tracemem( ) prototype mismatch: %zu arg%s "
							   "passed, at least 2 expected",
							   call->arg_cnt, plural(call->arg_cnt)));
		return -1;
	}
	if (call->arg_cnt > 3) {
		*ret_err = cs__at_err(call, udt__xstrdup("tracemem ( ) prototype mismatch: expected "
							 "at most 3 args"));
		return -1;
	}
	if (cs__compile_expr(t, call->args[0], call, ctx, &a, ret_err))
		return -1;
	enum dl_argclass cls = dl_type_argclass(a.difo.type);
	if (a.kind == CS_ACT_TRACE_STR || a.is_str || (cls != DL_ARG_INT && cls != DL_ARG_PTR)) {
		at = call->args[0];
		msg = udt__xasprintf("tracemem( ) argument #1 is incompatible with prototype:\n"
				     "\tprototype: pointer or integer\n\t argument: %s",
				     type_name(t, &a));
		goto fail;
	}
	if (cs__compile_expr(t, call->args[1], call, ctx, &n, ret_err)) {
		dl_difo_free(&a.difo);
		return -1;
	}
	dl_difo_free(&n.difo);
	at = call->args[1];
	if (n.kind != CS_ACT_TRACE_CONST || n.is_str || n.cval <= 0) {
		msg = udt__xstrdup("tracemem( ) argument #2 must be a non-zero positive integral "
				   "constant expression");
		goto fail;
	}
	if ((uint64_t)n.cval > TRACEMEM_MAX) {
		msg = udt__xasprintf("tracemem( ) argument #2 is too large: a record takes at most "
				     "%u bytes of memory", TRACEMEM_MAX);
		goto fail;
	}
	a.kind = CS_ACT_TRACEMEM;
	a.size = (unsigned)n.cval;
	a.from_hdr = false;
	a.pf_nvals = call->arg_cnt == 3;
	a.off = e->rec_size;
	e->rec_size += (a.size + 7) & ~7u;
	UDT__PUSH(e->acts, e->act_cnt, e->act_cap, a);
	if (call->arg_cnt < 3)
		return 0;
	if (cs__compile_value(t, e, call->args[2], call, ctx, &dyn, ret_err))
		return -1;
	if (!is_integer(&dyn)) {
		*ret_err = cs__at_err(call->args[2], udt__xstrdup("tracemem ( ) dynamic size "
								  "(argument #3) must be of scalar "
								  "type"));
		dl_difo_free(&dyn.difo);
		return -1;
	}
	dyn.from_hdr = false;
	UDT__PUSH(e->acts, e->act_cnt, e->act_cap, dyn);
	return 0;
fail:
	*ret_err = cs__at_err(at, msg);
	dl_difo_free(&a.difo);
	return -1;
}

/*
 * raise(sig), chill(ns) and stop(): destructive actions that record nothing.
 * stop() is raise(SIGSTOP), which stops the whole process as DTrace's
 * stop() does; it and chill() take their argument as raise() does.
 */
static int compile_signal(struct cs_trace *t, struct cs_ecb *e, const struct dl_node *call,
			  const struct dl_probe_ctx *ctx, const char *fn, char **ret_err)
{
	struct cs_action a = { 0 };
	bool stop = !strcmp(fn, "stop");
	size_t nargs = stop ? 0 : 1;

	t->destructive_used = true;
	if (call->arg_cnt != nargs) {
		*ret_err = cs__at_err(call, udt__xasprintf("%s( ) prototype mismatch: %zu arg%s "
							   "passed, %zu expected", fn, call->arg_cnt,
							   plural(call->arg_cnt), nargs));
		return -1;
	}
	/* in dtrace (BEGIN...), stop() would stop dtrace itself (DTrace's would too) */
	if (stop && t->cur_probe && pb_runs_here(t->cur_probe)) {
		*ret_err = cs__at_err(call, udt__xasprintf("stop( ) has no process to stop in %s: "
							   "the clause runs in dtrace",
							   t->cur_probe->name));
		return -1;
	}
	if (stop) {
		a.kind = CS_ACT_RAISE;
		a.difo = (struct dl_difo){ .is_const = true, .const_val = SIGSTOP,
					   .direct_arg = -1, .direct_var = -1 };
	} else {
		if (cs__compile_expr(t, call->args[0], call, ctx, &a, ret_err))
			return -1;
		if (!is_integer(&a)) {
			*ret_err = cs__at_err(call->args[0],
					      udt__xasprintf("%s( ) argument #1 is incompatible with "
							     "prototype:\n\tprototype: %s\n\t "
							     "argument: %s", fn,
							     !strcmp(fn, "raise") ? "int" : "hrtime_t",
							     type_name(t, &a)));
			dl_difo_free(&a.difo);
			return -1;
		}
		a.kind = !strcmp(fn, "raise") ? CS_ACT_RAISE : CS_ACT_CHILL;
	}
	a.size = 0;
	a.from_hdr = false;
	UDT__PUSH(e->acts, e->act_cnt, e->act_cap, a);
	return 0;
}

static int compile_setopt(struct cs_trace *t, struct cs_ecb *e, const struct dl_node *call,
			  const struct dl_probe_ctx *ctx, char **ret_err)
{
	struct cs_action a = { .kind = CS_ACT_SETOPT, .pf_nvals = call->arg_cnt };

	if (call->arg_cnt < 1 || call->arg_cnt > 2) {
		*ret_err = cs__at_err(call, udt__xasprintf("setopt( ) prototype mismatch: %zu arg%s "
							   "passed, %s expected", call->arg_cnt,
							   plural(call->arg_cnt),
							   call->arg_cnt ? "at most 2" : "at least 1"));
		return -1;
	}
	UDT__PUSH(e->acts, e->act_cnt, e->act_cap, a);
	for (size_t i = 0; i < call->arg_cnt; i++) {
		struct cs_action v = { .pf_value = true };
		if (cs__compile_value(t, e, call->args[i], call, ctx, &v, ret_err))
			return -1;
		if (v.kind != CS_ACT_TRACE_STR && !v.is_str) {
			*ret_err = cs__at_err(call->args[i],
					      udt__xasprintf("setopt( ) argument #%zu is incompatible "
							     "with prototype:\n\tprototype: string\n"
							     "\t argument: %s", i + 1, type_name(t, &v)));
			dl_difo_free(&v.difo);
			return -1;
		}
		UDT__PUSH(e->acts, e->act_cnt, e->act_cap, v);
	}
	return 0;
}

int cs__act_compile(struct cs_trace *t, struct cs_ecb *e, const struct dl_node *call,
		    const struct dl_probe_ctx *ctx, char **ret_err)
{
	const char *fn = call->a->name;

	if (!strcmp(fn, "tracemem"))
		return compile_tracemem(t, e, call, ctx, ret_err);
	if (!strcmp(fn, "raise") || !strcmp(fn, "stop") || !strcmp(fn, "chill"))
		return compile_signal(t, e, call, ctx, fn, ret_err);
	if (!strcmp(fn, "setopt"))
		return compile_setopt(t, e, call, ctx, ret_err);
	t->destructive_used = true;
	return cs__compile_printf(t, e, call, ctx, "system", CS_ACT_SYSTEM, ret_err);
}

int cs__act_check_destructive(struct cs_trace *t, char **ret_err)
{
	if (!t->destructive_used || t->o.destructive)
		return 0;
	*ret_err = udt__xstrdup("could not enable tracing: Destructive actions not allowed");
	return -1;
}

/* -- setopt() ------------------------------------------------------------------------------ */

/*
 * A boolean option's value as DTrace reads one: none (set), "" or a
 * negative word (unset), a positive word, or a number (set, even 0).
 */
static int boolean_value(const char *v, bool *ret)
{
	static const char *const words[][2] = {
		{ "yes", "no" }, { "enable", "disable" }, { "enabled", "disabled" },
		{ "true", "false" }, { "on", "off" }, { "set", "unset" },
	};
	char *end;

	if (!v) {
		*ret = true;
		return 0;
	}
	if (!*v) {
		*ret = false;
		return 0;
	}
	for (size_t i = 0; i < UDT__ARRAY_SIZE(words); i++) {
		if (!strcasecmp(v, words[i][0]) || !strcasecmp(v, words[i][1])) {
			*ret = !strcasecmp(v, words[i][0]);
			return 0;
		}
	}
	(void)strtoull(v, &end, 0);
	if (*end || *v == '-')
		return -1;
	*ret = true;
	return 0;
}

/* The options a running trace may change (DTrace's dynamic run-time ones), and the others. */
static const char *const dynamic_opts[] = { "aggrate", "aggsortkey", "aggsortkeypos",
					    "aggsortpos", "aggsortrev", "flowindent", "quiet",
					    "rawbytes", "stackindent", "switchrate", "cleanrate" };
static const char *const runtime_opts[] = { "aggsize", "bufsize", "bufpolicy", "bufresize",
					    "destructive", "dynvarsize", "nspec", "specsize",
					    "strsize", "temporal", "maxthreads", "deadman",
					    "scratchsize", "ustackframes", "maxframes", "oformat",
					    "ctfdir" };

static bool listed(const char *const *v, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i], name))
			return true;
	return false;
}

void cs__setopt(struct cs_trace *t, const struct cs_ecb *e, const char *name, const char *value)
{
	const char *why = NULL;
	bool on;

	if (listed(runtime_opts, UDT__ARRAY_SIZE(runtime_opts), name)) {
		why = "Operation illegal when tracing is active";
	} else if (!listed(dynamic_opts, UDT__ARRAY_SIZE(dynamic_opts), name)) {
		/* compile-time options mean nothing now; unknown names are errors */
		struct cs_opts scratch = t->o;
		why = cs_opt_set(&scratch, name, value ? value : "1");
	} else if (!strcmp(name, "quiet") || !strcmp(name, "aggsortkey") ||
		   !strcmp(name, "aggsortrev") || !strcmp(name, "flowindent") ||
		   !strcmp(name, "rawbytes")) {
		if (boolean_value(value, &on)) {
			why = "Invalid value for specified option";
		} else {
			bool *opt = !strcmp(name, "quiet") ? &t->o.out.quiet
				    : !strcmp(name, "aggsortkey") ? &t->o.aggsortkey
				    : !strcmp(name, "aggsortrev") ? &t->o.aggsortrev
				    : !strcmp(name, "rawbytes") ? &t->o.out.rawbytes : &t->o.out.flowindent;
			*opt = on;
		}
	} else {
		why = cs_opt_set(&t->o, name, value ? value : "1");
	}
	if (!why)
		return;
	const struct pb_probe *pr = e->probe;
	fflush(t->out);
	fprintf(stderr, "dtrace: error on enabled probe ID %u (ID %u: %s:%s:%s:%s): couldn't set "
		"option \"%s\" to \"%s\": %s\n", e->epid, pr->id, pr->prov, pr->mod, pr->func,
		pr->name, name, value ? value : "1", why);
}

/* -- print(), and trace() of an object -------------------------------------------------- */

/* Bytes of a record print() takes at most (tracemem()'s bound). */
#define PRINT_MAX (1u << 19)

bool cs__print_is(const char *fn)
{
	return !strcmp(fn, "print");
}

/*
 * The action of fn( )'s object d (a struct, union or array, argument #1 of
 * call): its bytes, as tracemem() records them, into *a. d is a's after.
 */
static int object_action(struct cs_trace *t, struct cs_ecb *e, const struct dl_node *call,
			 const char *fn, struct dl_difo d, struct cs_action *a, char **ret_err)
{
	uint64_t size = dl_type_resolve(d.type).t->size;

	a->difo = d;
	if (cs__check_difo(t, &a->difo, call, ret_err)) {
		dl_difo_free(&a->difo);
		return -1;
	}
	if (!size || size > PRINT_MAX) {
		*ret_err = cs__at_err(call->args[0],
				      udt__xasprintf("%s( ) argument #1 reference has invalid "
						     "size: %s is %llu bytes (1 to %u)", fn,
						     dl_type_cdecl(t->prog, d.type, NULL),
						     (unsigned long long)size, PRINT_MAX));
		dl_difo_free(&a->difo);
		return -1;
	}
	a->kind = CS_ACT_TRACEMEM;
	a->is_object = true;
	a->size = (unsigned)size;
	a->off = e->rec_size;
	e->rec_size += (a->size + 7) & ~7u;
	return 0;
}

int cs__trace_object(struct cs_trace *t, struct cs_ecb *e, const struct dl_node *call,
		     const struct dl_probe_ctx *ctx, bool *ret_done, char **ret_err)
{
	struct cs_action a = { 0 };
	struct dl_difo d;
	char *msg = NULL;

	*ret_done = false;
	if (dl_compile_object(t->prog, call->args[0], ctx, &d, &msg)) {
		free(msg); /* (trace()'s own compile says it) */
		return 0;
	}
	struct dl_qtype rt = dl_type_resolve(d.type);
	const struct dl_type *el = rt.t && rt.t->kind == DL_ARRAY ? dl_type_resolve(rt.t->ref).t
								 : NULL;
	if (!d.is_object || (el && el->kind == DL_INT && el->size == 1)) {
		/* a scalar, a string or a char array (a string): trace()'s own */
		dl_difo_free(&d);
		return 0;
	}
	*ret_done = true;
	if (object_action(t, e, call, "trace", d, &a, ret_err))
		return -1;
	UDT__PUSH(e->acts, e->act_cnt, e->act_cap, a);
	return 0;
}

int cs__print_compile(struct cs_trace *t, struct cs_ecb *e, const struct dl_node *call,
		      const struct dl_probe_ctx *ctx, char **ret_err)
{
	struct cs_action a = { 0 };
	struct dl_difo d;

	if (call->arg_cnt != 1) {
		*ret_err = cs__at_err(call, udt__xasprintf("print( ) prototype mismatch: %zu args "
							   "passed, 1 expected", call->arg_cnt));
		return -1;
	}
	if (dl_compile_object(t->prog, call->args[0], ctx, &d, ret_err))
		return -1;
	if (!d.is_object) {
		/* a scalar or a string: recorded as trace() records it */
		dl_difo_free(&d);
		if (cs__compile_expr(t, call->args[0], call, ctx, &a, ret_err))
			return -1;
		a.from_hdr = false; /* (recorded: print.c reads it there) */
		cs__place(&a, &e->rec_size);
		if (a.sym) {
			*ret_err = cs__at_err(call->args[0], udt__xstrdup("print( ) argument #1 is "
									  "incompatible with prototype: a "
									  "stack or a symbol is printed by "
									  "trace( )"));
			dl_difo_free(&a.difo);
			return -1;
		}
		a.print_type = a.difo.is_string || a.kind == CS_ACT_TRACE_STR
				       ? (struct dl_qtype){ dl_lookup_typedef(t->prog, "string"), 0 }
				       : a.difo.type;
	} else {
		if (object_action(t, e, call, "print", d, &a, ret_err))
			return -1;
		a.print_type = a.difo.type;
	}
	a.is_print = true;
	UDT__PUSH(e->acts, e->act_cnt, e->act_cap, a);
	return 0;
}
