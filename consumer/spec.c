/* SPDX-License-Identifier: MIT */
/*
 * Speculations in the consumer: compiling speculate(), commit() and
 * discard() with DTrace's rules, running them in BEGIN and END, finishing
 * the commits and discards the target left busy, and DTrace's reports.
 *
 * The speculations live in the session's shared memory (vm/spec.c has
 * the protocol, docs/runtime.md the layout). BEGIN runs before the target
 * has made that memory, so it speculates into a table of dtrace's own with
 * the same code; the speculations it hands out stay handed out in the
 * target (the enabling area carries their states, not their records). END
 * uses the target's table once there is one, so that it can commit or
 * discard what the target speculated.
 *
 * A commit in the target whose speculation another thread was still writing
 * into leaves a commit record (UDT_EPID_COMMIT) in the committing thread's
 * buffer; reading it here, in its place among that thread's records, we
 * wait for the writers and print the speculation's records there. A discard
 * left busy is finished by the cleaner at the next round.
 */
#include "consumer/internal.h"
#include "vm/spec.h"
#include "util/util.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>

struct cs_spec {
	struct udt_spectab local;  /* dtrace's own (BEGIN; END without a target's) */
	uint64_t local_counts[3];  /* its drops, busy and unavailable failures */
	struct udt_spectab shm;    /* the target's, once the shared memory is mapped */
	uint64_t reported[3];      /* what cs__spec_report() has said so far */
	uint64_t no_wait_until;    /* a finish gave up waiting: the others do not wait till then */
};

static struct cs_spec *state(struct cs_trace *t)
{
	if (!t->spec)
		t->spec = udt__xcalloc(1, sizeof(*t->spec));
	return t->spec;
}

/* -- Compiling ------------------------------------------------------------------------- */

bool cs__spec_is_action(const char *fn)
{
	return !strcmp(fn, "speculate") || !strcmp(fn, "commit") || !strcmp(fn, "discard");
}

int cs__spec_compile(struct cs_trace *t, struct cs_ecb *e, const struct dl_node *call,
		     const struct dl_probe_ctx *ctx, char **ret_err)
{
	const char *fn = call->a->name;
	struct cs_action a = { 0 };

	t->spec_used = true;
	if (call->arg_cnt != 1) {
		*ret_err = cs__at_err(call, udt__xasprintf("%s( ) prototype mismatch: %zu arg%s "
							   "passed, 1 expected", fn, call->arg_cnt,
							   call->arg_cnt == 1 ? "" : "s"));
		return -1;
	}
	if (cs__compile_expr(t, call->args[0], call, ctx, &a, ret_err))
		return -1;
	if (a.kind == CS_ACT_TRACE_STR || a.is_str ||
	    dl_type_argclass(a.difo.type) != DL_ARG_INT) {
		const char *ty = a.kind == CS_ACT_TRACE_STR || a.is_str
					 ? "string" : dl_type_cdecl(t->prog, a.difo.type, NULL);
		*ret_err = cs__at_err(call->args[0],
				      udt__xasprintf("%s( ) argument #1 is incompatible with "
						     "prototype:\n\tprototype: int\n\t argument: %s",
						     fn, ty));
		dl_difo_free(&a.difo);
		return -1;
	}
	a.kind = !strcmp(fn, "speculate") ? CS_ACT_SPECULATE
		 : !strcmp(fn, "commit") ? CS_ACT_COMMIT : CS_ACT_DISCARD;
	a.size = 0;
	a.from_hdr = false;
	UDT__PUSH(e->acts, e->act_cnt, e->act_cap, a);
	return 0;
}

/* Does expression n call fn() anywhere? */
static bool calls(const struct dl_node *n, const char *fn)
{
	if (!n)
		return false;
	if (n->kind == DL_N_CALL && n->a && n->a->kind == DL_N_IDENT && !strcmp(n->a->name, fn))
		return true;
	if (calls(n->a, fn) || calls(n->b, fn) || calls(n->c, fn))
		return true;
	for (size_t i = 0; i < n->arg_cnt; i++)
		if (calls(n->args[i], fn))
			return true;
	return false;
}

/* What a statement is, for DTrace's rules. */
enum stmt_kind {
	S_NONE,       /* records nothing: an assignment, discard() */
	S_DATA,       /* records data: trace(), printf(), printa()... */
	S_EXIT,       /* exit(): records its status */
	S_AGG,        /* an aggregation */
	S_DESTRUCT,   /* system(), raise()... */
	S_SPECULATE,
	S_COMMIT,
};

static enum stmt_kind stmt_kind(const struct dl_stmt *s)
{
	static const char *const destructive[] = { "system", "raise", "stop", "panic", "copyout",
						   "copyoutstr", "breakpoint", "chill" };
	const struct dl_node *x = s->expr;

	if (s->kind != DL_S_EXPR)
		return S_NONE;
	if (x->kind == DL_N_BINARY && x->op == '=' &&
	    (x->a->kind == DL_N_AGG || (x->a->kind == DL_N_INDEX && x->a->a->kind == DL_N_AGG)))
		return S_AGG;
	if (x->kind != DL_N_CALL || x->a->kind != DL_N_IDENT)
		return dl_node_is_effect(x) ? S_NONE : S_DATA;
	const char *fn = x->a->name;
	if (!strcmp(fn, "speculate"))
		return S_SPECULATE;
	if (!strcmp(fn, "commit"))
		return S_COMMIT;
	if (!strcmp(fn, "discard"))
		return S_NONE;
	if (!strcmp(fn, "exit"))
		return S_EXIT;
	for (size_t i = 0; i < UDT__ARRAY_SIZE(destructive); i++)
		if (!strcmp(fn, destructive[i]))
			return S_DESTRUCT;
	return S_DATA;
}

/*
 * DTrace's rules (dt_cc.c's, in the order it checks them): speculate()
 * comes before any data-recording action, once per clause and not after a
 * commit(); after it, no aggregation, destructive action or exit(); a
 * commit() follows no data-recording action or aggregation, and none
 * follows it. As the Guide says, a clause may commit several (disjoint)
 * speculations.
 */
int cs__spec_check_clause(struct cs_trace *t, const struct dl_clause *cl, char **ret_err)
{
	bool spec = false, commit = false, data = false;
	const char *msg = NULL;
	const struct dl_node *at = NULL;

	if (calls(cl->predicate, "speculation"))
		t->spec_used = true;
	for (size_t i = 0; i < cl->stmt_cnt && !msg; i++) {
		const struct dl_stmt *s = cl->stmts[i];
		enum stmt_kind k = stmt_kind(s);

		if (s->kind == DL_S_EXPR && (calls(s->expr, "speculation") || k == S_SPECULATE ||
					     k == S_COMMIT))
			t->spec_used = true;
		at = s->expr;
		switch (k) {
		case S_COMMIT:
			if (data)
				msg = "commit( ) may not follow data-recording action(s)";
			commit = true;
			break;
		case S_SPECULATE:
			if (spec)
				msg = "speculate( ) may not follow speculate( )";
			else if (commit)
				msg = "speculate( ) may not follow commit( )";
			else if (data)
				msg = "speculate( ) may not follow data-recording action(s)";
			spec = true;
			break;
		case S_AGG:
			if (commit)
				msg = "aggregating actions may not follow commit( )";
			else if (spec)
				msg = "aggregating actions may not follow speculate( )";
			data = true;
			break;
		case S_DESTRUCT:
			if (spec)
				msg = "destructive actions may not follow speculate( )";
			break;
		case S_EXIT:
		case S_DATA:
			if (spec && k == S_EXIT)
				msg = "exit( ) may not follow speculate( )";
			else if (commit)
				msg = "data-recording actions may not follow commit( )";
			if (!spec)
				data = true;
			break;
		case S_NONE:
			break;
		}
	}
	if (!msg)
		return 0;
	*ret_err = cs__at_err(at, udt__xstrdup(msg));
	return -1;
}

/* -- Tables -------------------------------------------------------------------------------- */

const struct udt_spectab *cs__shm_spec(struct cs_trace *t)
{
	struct cs_spec *sp = state(t);
	struct udt_shm_hdr *live = (struct udt_shm_hdr *)(void *)t->shm;

	/* (made anew at each call: the mapping goes at the end of the trace; where the
	   speculations are, the checked copy of the header says: shm.c) */
	if (!cs__shm_usable(t) || !t->sh.nspec)
		return NULL;
	sp->shm = (struct udt_spectab){
		.spec = (struct udt_spec *)(void *)(t->shm + t->sh.spec_off),
		.n = (uint32_t)t->sh.nspec,
		.data = t->shm + t->sh.spec_data_off,
		.size = t->sh.specsize,
		.drops = &live->spec_drops,
		.busy = &live->spec_busy,
		.unavail = &live->spec_unavail,
	};
	return &sp->shm;
}

static const struct udt_spectab *local_table(struct cs_trace *t)
{
	struct cs_spec *sp = state(t);
	struct udt_spectab *l = &sp->local;

	if (!t->spec_used)
		return NULL;
	if (!l->spec) {
		/* a cache line each, as the type says (calloc() gives less) */
		void *m = NULL;
		size_t sz = (size_t)t->o.nspec * sizeof(struct udt_spec);
		if (posix_memalign(&m, 64, sz))
			udt__die("out of memory");
		l->spec = memset(m, 0, sz);
		l->n = t->o.nspec;
		l->size = t->o.specsize;
		l->data = udt__xcalloc(t->o.nspec, t->o.specsize);
		l->drops = &sp->local_counts[0];
		l->busy = &sp->local_counts[1];
		l->unavail = &sp->local_counts[2];
	}
	return l;
}

const struct udt_spectab *cs__spec_table(struct cs_trace *t)
{
	const struct udt_spectab *s = cs__shm_spec(t);

	return s ? s : local_table(t);
}

uint32_t cs__spec_begin_state(struct cs_trace *t, uint32_t i)
{
	const struct udt_spectab *l = t->spec && t->spec->local.spec ? &t->spec->local : NULL;

	return l && i < l->n ? __atomic_load_n(&l->spec[i].state, __ATOMIC_RELAXED)
			     : UDT_SPEC_INACTIVE;
}

/* -- Commits and discards ----------------------------------------------------------------- */

static bool print_sink(void *arg, const uint8_t *recs, uint64_t len)
{
	cs__print_recs(arg, recs, len);
	return true;
}

/*
 * Finish speculation index i of tab: a target's thread that was writing into
 * it is given up to FINISH_WAIT_NS (it is between two stores of a record,
 * unless the scheduler took its CPU away: on a loaded machine that lasts
 * milliseconds, which a count of yields did not cover). If it does not come
 * out, a commit prints the records complete so far and becomes a discard,
 * which the cleaner finishes later; the late record is lost (a thread
 * stopped mid-record, by a debugger say, must not stop dtrace).
 */
#define FINISH_WAIT_NS (200 * 1000000ull)
/*
 * After a finish gave up, the others of the next second do not wait: a
 * process that keeps its speculations busy (or writes commit records of
 * them into its buffers) cannot hold dtrace for 200 ms a record.
 */
#define NO_WAIT_NS (1000 * 1000000ull)

static void finish(struct cs_trace *t, const struct udt_spectab *tab, uint32_t i, bool commit)
{
	struct cs_spec *sp = state(t);
	uint64_t until = 0;

	for (int spin = 0;; spin++) {
		if (udt__spec_finish(tab, i, commit, print_sink, t))
			return;
		uint32_t st = __atomic_load_n(&tab->spec[i].state, __ATOMIC_ACQUIRE);
		if (st != (commit ? UDT_SPEC_COMMITTING : UDT_SPEC_DISCARDING) && st != 4)
			return; /* finished by someone else (4: being finished) */
		if (spin < 100)
			continue;
		uint64_t now = udt__now_ns();
		if (!until)
			until = now < sp->no_wait_until ? now : now + FINISH_WAIT_NS;
		if (now >= until) {
			sp->no_wait_until = now + NO_WAIT_NS;
			break;
		}
		sched_yield();
	}
	if (commit) {
		uint64_t len = udt__spec_complete(tab, i);
		cs__print_recs(t, tab->data + (uint64_t)i * tab->size, len);
		udt__spec_abort_commit(tab, i);
	}
}

int cs__spec_end(struct cs_trace *t, const struct udt_spectab *tab, uint64_t id, bool commit)
{
	int rv = udt__spec_end(tab, id, commit, print_sink, t);

	if (rv == UDT_SPEC_DEFERRED)
		finish(t, tab, (uint32_t)(id - 1), commit);
	return rv;
}

void cs__spec_commit_record(struct cs_trace *t, const struct udt_commit *c)
{
	const struct udt_spectab *tab = cs__shm_spec(t);

	if (tab && c->spec < tab->n)
		finish(t, tab, c->spec, true);
}

bool cs__spec_pending(struct cs_trace *t)
{
	const struct udt_spectab *tab = t->spec_used ? cs__shm_spec(t) : NULL;

	for (uint32_t i = 0; tab && i < tab->n; i++)
		if (__atomic_load_n(&tab->spec[i].state, __ATOMIC_RELAXED) == UDT_SPEC_COMMITTING)
			return true;
	return false;
}

void cs__spec_clean(struct cs_trace *t, bool final)
{
	const struct udt_spectab *tab = t->spec_used ? cs__shm_spec(t) : NULL;

	for (uint32_t i = 0; tab && i < tab->n; i++) {
		uint32_t st = __atomic_load_n(&tab->spec[i].state, __ATOMIC_ACQUIRE);
		if (st == UDT_SPEC_DISCARDING)
			(void)udt__spec_finish(tab, i, false, NULL, NULL);
		else if (st == UDT_SPEC_COMMITTING && final)
			finish(t, tab, i, true); /* its commit record was lost (a ring wrapped) */
	}
}

/* -- Reports --------------------------------------------------------------------------- */

void cs__spec_report(struct cs_trace *t)
{
	static const enum out_drop_kind kinds[3] = {
		OUT_DROP_SPEC, OUT_DROP_SPEC_BUSY, OUT_DROP_SPEC_UNAVAIL,
	};
	struct cs_spec *sp;
	uint64_t now[3];

	if (!t->spec_used)
		return;
	sp = state(t);
	const struct udt_spectab *tab = cs__shm_spec(t);
	for (int k = 0; k < 3; k++) {
		const uint64_t *c = !tab ? NULL : k == 0 ? tab->drops : k == 1 ? tab->busy
											  : tab->unavail;
		now[k] = sp->local_counts[k] + (c ? __atomic_load_n(c, __ATOMIC_RELAXED) : 0);
	}
	for (int k = 0; k < 3; k++) {
		if (now[k] <= sp->reported[k])
			continue;
		out_drop(cs__out(t), kinds[k], 0, now[k] - sp->reported[k]);
		sp->reported[k] = now[k];
	}
}

void cs__spec_free(struct cs_trace *t)
{
	if (!t->spec)
		return;
	free(t->spec->local.spec);
	free(t->spec->local.data);
	free(t->spec);
	t->spec = NULL;
}
