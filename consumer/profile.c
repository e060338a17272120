/* SPDX-License-Identifier: MIT */
/*
 * The profile provider's probes in the consumer (docs/profile.md):
 * profile:::profile-n and profile:::tick-n, created on demand when a probe
 * description names one, as DTrace's provider creates them; the table of
 * profile probes the runtime arms its timers from; and the tick probes,
 * which dtrace runs itself, as it runs BEGIN and END: a wall-clock signal
 * into a process whose threads sleep would wake one, and make its
 * nanosleep() or poll() fail with EINTR.
 *
 * A name is "profile-" or "tick-" and an interval: n times a second, or n of
 * a unit (nsec ns usec us msec ms sec s min m hour h day d hz). A name
 * written out creates a probe, in the provider "profile" with no module or
 * function, and a glob DTrace's default ones (defaults[] below); an interval under 200 microseconds
 * is refused, with a message (DTrace refuses it silently). A profile
 * probe's semaphore is UDT_PROF_KEY(i), i its index in the session's table:
 * a key the runtime fires it with, never an address the consumer writes.
 */
#include "consumer/internal.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

/* The kind and interval of a profile provider probe name; 0 when it is not one. */
static uint32_t parse_name(const char *name, uint64_t *ret_ns, bool *ret_valid)
{
	uint32_t kind;
	const char *n;

	*ret_valid = false;
	if (!strncmp(name, "profile-", 8)) {
		kind = UDT_PROF_PROFILE;
		n = name + 8;
	} else if (!strncmp(name, "tick-", 5)) {
		kind = UDT_PROF_TICK;
		n = name + 5;
	} else {
		return 0;
	}
	*ret_valid = !cs_parse_time(n, true, ret_ns);
	return kind;
}

/* The name field of a probe description (the text after its last ':'). */
static const char *name_field(const char *desc)
{
	const char *c = strrchr(desc, ':');

	return c ? c + 1 : desc;
}

/*
 * The probes DTrace's provider makes when it is asked for all of its
 * probes (illumos's profile_provide() with no description): a glob over
 * the provider ("-P profile", "profile:::tick-*") matches those.
 */
static const char *const defaults[] = {
	"profile-97", "profile-199", "profile-499", "profile-997", "profile-1999", "profile-4001",
	"profile-4999", "tick-1", "tick-10", "tick-100", "tick-500", "tick-1000", "tick-5000",
};

int cs_probes_add_profile(struct cs_probes *ps, const char *desc, bool samples, char **ret_err)
{
	const char *name = name_field(desc);
	uint64_t ns;
	bool valid;
	uint32_t kind = parse_name(name, &ns, &valid);

	if (!kind || strpbrk(name, "*?[\\")) {
		/* a glob: DTrace's default probes it matches (profile-n only if they may
		   sample a process), and it names none itself */
		for (size_t i = 0; i < UDT__ARRAY_SIZE(defaults); i++) {
			struct cs_probe pr = { .prov = (char *)"profile", .mod = "", .func = "",
					       .name = (char *)defaults[i] };
			if ((samples || !strncmp(defaults[i], "tick-", 5)) &&
			    cs_pdesc_match(desc, &pr) &&
			    cs_probes_add_profile(ps, defaults[i], samples, ret_err) < 0)
				return -1;
		}
		return 0;
	}
	struct cs_probe pr = {
		.prov = (char *)"profile", .mod = "", .func = "", .name = (char *)name,
		.prof_kind = kind, .prof_ns = ns,
	};
	if (!cs_pdesc_match(desc, &pr))
		return 0; /* another provider's probe of that name */
	if (!valid) {
		*ret_err = udt__xasprintf("invalid probe specifier %s: %s is not an interval: "
					  "give n times a second, or n with a suffix (nsec ns "
					  "usec us msec ms sec s min m hour h day d hz)", desc,
					  name + (kind == UDT_PROF_PROFILE ? 8 : 5));
		return -1;
	}
	if (ns < UDT_PROF_MIN_NS) {
		*ret_err = udt__xasprintf("invalid probe specifier %s: %s fires every %llu "
					  "nanoseconds, and the profile provider's shortest interval "
					  "is 200 microseconds", desc, name, (unsigned long long)ns);
		return -1;
	}
	uint32_t index = 0;
	for (size_t i = 0; i < ps->cnt; i++) {
		if (!ps->v[i].prof_kind)
			continue;
		if (!strcmp(ps->v[i].name, name))
			return 1; /* created already */
		index += ps->v[i].prof_kind == UDT_PROF_PROFILE;
	}
	if (kind == UDT_PROF_PROFILE && index >= UDT_PROF_MAX) {
		*ret_err = udt__xasprintf("invalid probe specifier %s: a session may have at most "
					  "%d profile probes", desc, UDT_PROF_MAX);
		return -1;
	}
	pr.prov = udt__xstrdup("profile");
	pr.name = udt__xstrdup(name);
	if (kind == UDT_PROF_PROFILE) {
		pr.prof_index = index;
		pr.sem = UDT_PROF_KEY(index);
	}
	pr.id = (uint32_t)ps->cnt + 1;
	size_t cap = ps->cnt;
	UDT__PUSH(ps->v, ps->cnt, cap, pr);
	return 1;
}

size_t cs__prof_table(const struct cs_trace *t, struct udt_prof *ret)
{
	size_t n = 0;

	for (size_t i = 0; i < t->probes.cnt; i++) {
		const struct cs_probe *pr = &t->probes.v[i];
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

void cs_probes_add_live(struct cs_probes *ps, struct pr_proc *proc)
{
	uint64_t ctl;
	struct udt_runtime_id id = { 0 };
	struct udt_ctlhdr hdr;
	uint64_t id_addr;

	if (!proc || pr_proc_lookup(proc, "udt__runtime_id", &id_addr, NULL) ||
	    pr_proc_read(proc, id_addr, &id, sizeof(id)) || id.magic != UDT_CONTROL_MAGIC ||
	    id.version != UDT_ABI_VERSION || pr_proc_lookup(proc, "udt__control", &ctl, NULL) ||
	    pr_proc_read(proc, ctl, &hdr, sizeof(hdr)))
		return;
	/* the profile probes of every session running there */
	for (uint32_t s = 0; s < UDT_SLOT_MAX; s++) {
		uint64_t slot = ctl + offsetof(struct udt_ctlblock, slots) +
				s * sizeof(struct udt_control);
		uint32_t area_idx;
		struct udt_area_hdr h;
		struct udt_prof p[UDT_PROF_MAX];

		if (!hdr.live[s] ||
		    pr_proc_read(proc, slot + offsetof(struct udt_control, area), &area_idx,
				 sizeof(area_idx)))
			continue;
		uint64_t area = ctl + offsetof(struct udt_ctlblock, areas) +
				((uint64_t)s * 2 + (area_idx & 1)) * UDT_AREA_SZ;
		if (pr_proc_read(proc, area, &h, sizeof(h)) || h.size != sizeof(h) || !h.prof_cnt ||
		    h.prof_cnt > UDT_PROF_MAX ||
		    pr_proc_read(proc, area + h.prof_off, p, h.prof_cnt * sizeof(p[0])))
			continue;
		for (uint32_t i = 0; i < h.prof_cnt; i++) {
			char *err = NULL;
			p[i].name[sizeof(p[i].name) - 1] = '\0';
			if (cs_probes_add_profile(ps, p[i].name, true, &err) < 0)
				free(err);
		}
	}
}

static bool is_self(const struct dl_node *x)
{
	return x->kind == DL_N_PTRMEMBER && x->a && x->a->kind == DL_N_IDENT &&
	       !strcmp(x->a->name, "self");
}

int cs__prof_check_clause(const struct dl_clause *cl, const struct cs_probe *pr, char **ret_err)
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
		const struct cs_probe *pr = &t->probes.v[i];
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
