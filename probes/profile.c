/* SPDX-License-Identifier: MIT */
/*
 * The profile provider's probes (docs/profile.md): profile:::profile-n and
 * profile:::tick-n, created on demand when a probe description names one,
 * as DTrace's provider creates them. (What a session does with them is the
 * consumer's: consumer/ticks.c.)
 *
 * A name is "profile-" or "tick-" and an interval: n times a second, or n of
 * a unit (nsec ns usec us msec ms sec s min m hour h day d hz). A name
 * written out creates a probe, in the provider "profile" with no module or
 * function, and a glob DTrace's default ones (defaults[] below); an interval under 200 microseconds
 * is refused, with a message (DTrace refuses it silently). A profile
 * probe's semaphore is UDT_PROF_KEY(i), i its index in the session's table:
 * a key the runtime fires it with, never an address the consumer writes.
 */
#include "probes/probes.h"
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
	*ret_valid = !udt__parse_time(n, true, ret_ns);
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

int pb_probes_add_profile(struct pb_probes *ps, const char *desc, bool samples, char **ret_err)
{
	const char *name = name_field(desc);
	uint64_t ns;
	bool valid;
	uint32_t kind = parse_name(name, &ns, &valid);

	if (!kind || strpbrk(name, "*?[\\")) {
		/* a glob: DTrace's default probes it matches (profile-n only if they may
		   sample a process), and it names none itself */
		for (size_t i = 0; i < UDT__ARRAY_SIZE(defaults); i++) {
			struct pb_probe pr = { .prov = (char *)"profile", .mod = "", .func = "",
					       .name = (char *)defaults[i] };
			if ((samples || !strncmp(defaults[i], "tick-", 5)) &&
			    pb_desc_match(desc, &pr) &&
			    pb_probes_add_profile(ps, defaults[i], samples, ret_err) < 0)
				return -1;
		}
		return 0;
	}
	struct pb_probe pr = {
		.prov = (char *)"profile", .mod = "", .func = "", .name = (char *)name,
		.prof_kind = kind, .prof_ns = ns,
	};
	if (!pb_desc_match(desc, &pr))
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

void pb_probes_add_live(struct pb_probes *ps, struct pr_proc *proc)
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
			if (pb_probes_add_profile(ps, p[i].name, true, &err) < 0)
				free(err);
		}
	}
}
