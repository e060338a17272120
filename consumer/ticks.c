/* SPDX-License-Identifier: MIT */
/*
 * The profile provider's probes in a session (docs/profile.md; the probes
 * themselves are made in probes/profile.c): the table of profile probes the
 * runtime arms its timers from, the chapter's rule on their clauses, and
 * the tick probes, which dtrace runs itself, as it runs BEGIN and END: a
 * wall-clock signal into a process whose threads sleep would wake one, and
 * make its nanosleep() or poll() fail with EINTR.
 */
#include "consumer/internal.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

size_t cs__prof_table(const struct cs_trace *t, struct udt_prof *ret)
{
	size_t n = 0;

	for (size_t i = 0; i < t->probes.cnt; i++) {
		const struct pb_probe *pr = &t->probes.v[i];
		if (pr->prof_kind != UDT_PROF_PROFILE || pr->prof_index >= UDT_PROF_MAX)
			continue;
		ret[pr->prof_index] = (struct udt_prof){ .interval_ns = pr->prof_ns,
							 .kind = pr->prof_kind };
		snprintf(ret[pr->prof_index].name, sizeof(ret->name), "%s", pr->name);
		if (pr->prof_index + 1 > n)
			n = pr->prof_index + 1;
	}
	return n;
}

static bool is_self(const struct dl_node *x)
{
	return x->kind == DL_N_PTRMEMBER && x->a && x->a->kind == DL_N_IDENT &&
	       !strcmp(x->a->name, "self");
}

int cs__prof_check_clause(const struct dl_clause *cl, const struct pb_probe *pr, char **ret_err)
{
	const struct dl_node *f = cs__clause_find(cl, is_self);

	if (!f)
		return 0;
	/* the chapter: thread-local variables are inaccessible to the profile provider's probes */
	*ret_err = udt__xasprintf("%s:%d:%d: error: self->%s: thread-local variables are not "
				  "available in the profile provider's probes (%s)", f->loc.file,
				  f->loc.line, f->loc.col, f->name, pr->name);
	return -1;
}

/* -- tick-n, run here -------------------------------------------------------------------------- */

void cs__ticks_start(struct cs_trace *t)
{
	uint64_t now = udt__now_ns();

	for (size_t i = 0; i < t->probes.cnt; i++) {
		const struct pb_probe *pr = &t->probes.v[i];
		bool used = false;

		if (pr->prof_kind != UDT_PROF_TICK)
			continue;
		for (size_t e = 0; e < t->ecb_cnt && !used; e++)
			used = t->ecbs[e].local && t->ecbs[e].probe == pr;
		if (!used)
			continue;
		struct cs_tick k = { pr, now + pr->prof_ns };
		size_t cap = t->tick_cnt;
		UDT__PUSH(t->ticks, t->tick_cnt, cap, k);
	}
}

void cs__ticks_run(struct cs_trace *t)
{
	for (size_t i = 0; i < t->tick_cnt && !t->done; i++) {
		struct cs_tick *k = &t->ticks[i];
		uint64_t now = udt__now_ns();

		if (now < k->next)
			continue;
		cs__run_probe(t, k->probe->name);
		/* once per interval; a consumer that fell behind (stopped) does not catch up */
		k->next += k->probe->prof_ns;
		if (k->next <= now)
			k->next = now + k->probe->prof_ns;
	}
}

uint64_t cs__ticks_due_in(const struct cs_trace *t)
{
	uint64_t now = udt__now_ns(), in = UINT64_MAX;

	for (size_t i = 0; i < t->tick_cnt; i++) {
		uint64_t d = t->ticks[i].next > now ? t->ticks[i].next - now : 0;
		if (d < in)
			in = d;
	}
	return in;
}

void cs__ticks_free(struct cs_trace *t)
{
	free(t->ticks);
	t->ticks = NULL;
	t->tick_cnt = 0;
}
