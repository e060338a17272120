/* SPDX-License-Identifier: MIT */
/*
 * Probes that appear while a session runs: the libraries a traced process
 * dlopen()s after the attach (docs/runtime.md, "Libraries loaded after the
 * attach"), as DTrace enables the probes of a provider that appears after
 * the trace started when they match the enablings.
 *
 * Mechanism. Each round, one read of the target's udt__registry.gen (every
 * registration and unregistration bumps it). When it changed:
 *
 *  1. Unloads. The runtime strikes (zeroes) an unloaded object's entries
 *     from the undo lists of every generation of the session's enablings;
 *     an entry we wrote that the target now holds as 0 is an object gone,
 *     even one loaded again at the same place since: its tables and (for a
 *     -G object) its module are forgotten (pr_proc_forget_dispatch()).
 *  2. Tables. pr_proc_sync() reads the registry's slots, rereads the
 *     mappings when one holds a table we do not know, and marks which tables
 *     are registered: only those are enabled (their constructors have run,
 *     their object is loaded whole).
 *  3. Probes. The probes of registered tables that have none yet
 *     (pb_probes_add_new()) are a batch of their own, numbered after every
 *     probe so far; batches are never reallocated, since ECBs point to them.
 *  4. ECBs. Every clause's descriptions are matched against the batch and
 *     compiled for each probe matched, in the script's order, with EPIDs
 *     after all the session's (drain.c finds an ECB by its EPID).
 *  5. A generation. The ECBs, their hash and undo lists are appended to the
 *     session's area after everything it holds and written into the target,
 *     then published by the header's gen_off (abi/abi.h). What does not
 *     fit is laid out object by object; an object that does not fit is said
 *     once ("enabling area full") and left alone.
 *  6. Objects gone meanwhile. A table unregistered after step 2 and before
 *     the publication was not struck by the runtime (the generation was not
 *     there to strike): if the registry changed, it is synced again, and the
 *     entries of the generation's objects no longer registered are struck by
 *     us, in the target and in our copy.
 *  7. Enabling. The dispatch pointers, then the semaphores, from the lists as
 *     the target holds them then (struck entries skipped).
 *
 * The pid provider's probes (docs/pid.md, "Libraries loaded later") come
 * from any library, with tables of ours or not: each round reads the
 * process's size (/proc/PID/statm), and when it moved, its mappings; the
 * script's pid descriptions are matched in the modules mapped since (not
 * while the dynamic linker is mapping one), their ECBs published as above,
 * their generation carrying a whole new sites table, which the runtime
 * patches when it is made to sync.
 *
 * What remains (docs/runtime.md): an object unloaded between step 7's read
 * of the lists and its writes, and another object mapped at the same
 * address meanwhile, would have a word of its memory written; the probes of
 * a library loaded and unloaded between two rounds are never enabled; a
 * clause whose variables were not declared when the session started (a -Z
 * clause that needs its probe's args[] to compile) is refused for new
 * probes if it declares one.
 */
#include "consumer/internal.h"
#include "util/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define CTL_FIELD(f) (t->ctl + offsetof(struct udt_control, f))

struct cs_late {
	bool synced;               /* reg_gen is the registry's gen at the last sync */
	uint32_t reg_gen;
	bool acked;                /* acked_gen written to the slot's reg_acked */
	uint32_t acked_gen;
	size_t vars[DL_VAR_SCOPES]; /* the variables the session laid out when it started */
	bool spec_used;
	struct pb_probes **batches; /* the probes that appeared, a batch per round */
	size_t batch_cnt, batch_cap;
	const struct dl_clause **refused; /* clauses that declared variables too late */
	size_t refused_cnt, refused_cap;
	char **full;               /* modules said not to fit in the area */
	size_t full_cnt, full_cap;
	bool notes;                /* the program names processes' probes: a library's notes too */
	/* the pid provider's descriptions (docs/pid.md): matched in each library mapped since */
	const char **pid_descs;
	size_t pid_cnt, pid_cap;
	size_t mods_seen;          /* the modules (t->proc->mods) they were matched in */
	size_t mods_from;          /* and the first of those this round matched them in */
};

/* One object of a new generation: its dispatch pointer, and its ECBs. */
struct object {
	uint64_t disp;
	const struct pr_module *mod;
	size_t *idx;               /* ECB indices */
	size_t n;
};

void cs__late_start(struct cs_trace *t)
{
	struct cs_late *l;

	if (!t->attached || !t->proc)
		return;
	l = udt__xcalloc(1, sizeof(*l));
	for (int s = 0; s < DL_VAR_SCOPES; s++)
		l->vars[s] = dl_program_var_count(t->prog, (enum dl_var_scope)s);
	l->spec_used = t->spec_used;
	size_t cl_cnt;
	struct dl_clause *const *cls = dl_program_clauses(t->prog, &cl_cnt);
	for (size_t c = 0; c < cl_cnt; c++)
		for (size_t d = 0; d < cls[c]->pdesc_cnt; d++)
			if (pb_desc_pid_of(cls[c]->pdescs[d], (int)t->proc->pid))
				UDT__PUSH(l->pid_descs, l->pid_cnt, l->pid_cap, cls[c]->pdescs[d]);
			else
				l->notes |= pb_desc_kind(cls[c]->pdescs[d]) == PB_DESC_PROC;
	l->mods_seen = t->proc->mod_cnt;
	/* not synced: the first round looks, for a library loaded since the probes were read */
	t->late = l;
}

void cs__late_free(struct cs_trace *t)
{
	struct cs_late *l = t->late;

	if (!l)
		return;
	for (size_t i = 0; i < l->batch_cnt; i++) {
		pb_probes_free(l->batches[i]);
		free(l->batches[i]);
	}
	free(l->batches);
	free(l->refused);
	for (size_t i = 0; i < l->full_cnt; i++)
		free(l->full[i]);
	free(l->full);
	free(l->pid_descs);
	free(l);
	t->late = NULL;
}

/* Step 1: the objects whose entries the runtime struck since we wrote them are gone. */
static void forget_unloaded(struct cs_trace *t)
{
	for (size_t i = 0; i < t->gen_cnt; i++) {
		const struct cs_gen *g = &t->gens[i];
		uint64_t *sems, *disps;
		uint64_t *img_sems = (uint64_t *)(void *)(t->img.buf + g->sem_off);
		uint64_t *img_disps = (uint64_t *)(void *)(t->img.buf + g->disp_off);

		if (cs__gen_read_lists(t, g, &sems, &disps))
			continue;
		for (uint32_t k = 0; k < g->disp_cnt; k++) {
			if (!img_disps[k] || disps[k])
				continue;
			pr_proc_forget_dispatch(t->proc, img_disps[k]);
			img_disps[k] = 0;
		}
		for (uint32_t k = 0; k < g->sem_cnt; k++)
			if (!sems[k])
				img_sems[k] = 0;
		free(sems);
		free(disps);
	}
}

static bool refused(const struct cs_late *l, const struct dl_clause *cl)
{
	for (size_t i = 0; i < l->refused_cnt; i++)
		if (l->refused[i] == cl)
			return true;
	return false;
}

/* Did compiling a clause declare what the session did not lay out when it started? */
static bool layout_grew(const struct cs_trace *t, const struct cs_late *l)
{
	for (int s = 0; s < DL_VAR_SCOPES; s++)
		if (dl_program_var_count(t->prog, (enum dl_var_scope)s) > l->vars[s])
			return true;
	return t->spec_used != l->spec_used;
}

static bool is_core(const char *desc)
{
	return !strcmp(desc, "BEGIN") || !strcmp(desc, "END") || !strcmp(desc, "dtrace:::BEGIN") ||
	       !strcmp(desc, "dtrace:::END") || !strcmp(desc, ":::BEGIN") || !strcmp(desc, ":::END");
}

/* Step 4: the ECBs of the clauses for the probes of batch b, appended to t->ecbs. */
static void compile_batch(struct cs_trace *t, struct pb_probes *b)
{
	struct cs_late *l = t->late;
	size_t cl_cnt;
	struct dl_clause *const *cls = dl_program_clauses(t->prog, &cl_cnt);

	for (size_t c = 0; c < cl_cnt; c++) {
		const struct dl_clause *cl = cls[c];

		for (size_t d = 0; d < cl->pdesc_cnt && !refused(l, cl); d++) {
			if (is_core(cl->pdescs[d]))
				continue;
			for (size_t i = 0; i < b->cnt && !refused(l, cl); i++) {
				struct pb_probe *pr = &b->v[i];
				size_t before = t->ecb_cnt;
				char *err = NULL;

				if (!pb_desc_match(cl->pdescs[d], pr))
					continue;
				if (cs__compile_probe(t, cl, pr, &err)) {
					fflush(t->out);
					fprintf(stderr, "dtrace: failed to enable %s:%s:%s:%s: %s\n",
						pr->prov, pr->mod, pr->func, pr->name, err);
					free(err);
					continue;
				}
				if (!layout_grew(t, l))
					continue;
				/* its variables have no place in the target's memory */
				while (t->ecb_cnt > before)
					cs__ecb_free(&t->ecbs[--t->ecb_cnt]);
				UDT__PUSH(l->refused, l->refused_cnt, l->refused_cap, cl);
				l->spec_used = t->spec_used;
				fflush(t->out);
				fprintf(stderr, "dtrace: failed to enable %s:%s:%s:%s: the clause at %s:%d "
					"declares variables the session did not lay out when it "
					"started (it matched no probe then, and did not compile "
					"without one)\n", pr->prov, pr->mod, pr->func, pr->name,
					cl->loc.file, cl->loc.line);
			}
		}
	}
}

/* Say once that the probes of module name do not fit in the area. */
static void say_full(struct cs_trace *t, const char *name)
{
	struct cs_late *l = t->late;

	for (size_t i = 0; i < l->full_cnt; i++)
		if (!strcmp(l->full[i], name))
			return;
	UDT__PUSH(l->full, l->full_cnt, l->full_cap, udt__xstrdup(name));
	fflush(t->out);
	fprintf(stderr, "dtrace: cannot enable the probes of %s: enabling area full\n", name);
}

/*
 * Step 5: append a generation of ECBs t->ecbs[idx[0..n)] to the area, write
 * it into the target and publish it; its record in *ret. -ENOSPC when it does
 * not fit (nothing is written), or another negative errno.
 */
static int add_gen(struct cs_trace *t, const size_t *idx, size_t n, struct cs_gen *ret)
{
	struct cs_area *a = &t->img;
	size_t mark = a->used;
	struct cs_addrs sems = { 0 }, disps = { 0 };
	struct cs_ecbs_at at;
	struct udt_area_gen g = { .size = sizeof(g), .prev = t->gens[t->gen_cnt - 1].off,
				  .gen = (uint32_t)t->gen_cnt };
	uint64_t base = cs__area_addr(t);
	int err;

	cs__area_put_ecbs(t, a, idx, n, &sems, &disps, &at);
	g.ecb_cnt = at.ecb_cnt;
	g.ecb_off = at.ecb_off;
	g.hash_bits = at.hash_bits;
	g.hash_off = at.hash_off;
	g.disp_cnt = (uint32_t)disps.cnt;
	g.disp_off = cs__area_put_list(a, &disps);
	/* the pid probes' sites: a new table of all of the session's (sites.c) */
	g.sites_off = cs__sites_put_late(t, a, idx, n, t->late->mods_from, &sems);
	g.sem_cnt = (uint32_t)sems.cnt; /* (the notes' semaphores too) */
	g.sem_off = cs__area_put_list(a, &sems);
	uint32_t off = cs__area_put(a, &g, sizeof(g));
	free(sems.v);
	free(disps.v);
	if (a->overflow) {
		memset(a->buf + mark, 0, UDT_AREA_SZ - mark);
		a->used = mark;
		a->overflow = false;
		return -ENOSPC;
	}
	/* the generation's bytes, then (release, as the runtime reads them: acquire) its offset */
	err = pr_proc_write(t->proc, base + mark, a->buf + mark, a->used - mark);
	if (!err)
		err = pr_proc_write(t->proc, base + offsetof(struct udt_area_hdr, gen_off), &off,
				    sizeof(off));
	if (err)
		return err;
	if (g.sites_off)
		cs__sites_adopt(t, g.sites_off);
	*ret = (struct cs_gen){ .off = off, .sem_off = g.sem_off, .sem_cnt = g.sem_cnt,
				.disp_off = g.disp_off, .disp_cnt = g.disp_cnt,
				.ecb_end = (uint32_t)t->ecb_cnt };
	UDT__PUSH(t->gens, t->gen_cnt, t->gen_cap, *ret);
	((struct udt_area_hdr *)(void *)a->buf)->gen_off = off;
	return 0;
}

/* Is a table of object o (its dispatch pointer) live and registered? */
static bool object_registered(const struct pr_proc *p, uint64_t disp)
{
	for (size_t m = 0; m < p->mod_cnt; m++) {
		const struct pr_module *mod = p->mods[m];
		for (size_t k = 0; k < mod->table_cnt && !mod->gone; k++) {
			const struct pr_ptable *pt = mod->tables[k];
			if (!pt->gone && pt->registered && pr_ptable_dispatch(pt) == disp)
				return true;
		}
	}
	return false;
}

/*
 * Step 6: strike from generation g the entries of the objects that are no
 * longer registered, in the target and in our copy: the semaphores of their
 * probes and their dispatch pointers.
 */
static void strike_gone(struct cs_trace *t, const struct cs_gen *g, const struct object *objs,
			size_t nobj)
{
	uint64_t base = cs__area_addr(t), zero = 0;
	uint64_t *sems = (uint64_t *)(void *)(t->img.buf + g->sem_off);
	uint64_t *disps = (uint64_t *)(void *)(t->img.buf + g->disp_off);

	for (size_t o = 0; o < nobj; o++) {
		if (object_registered(t->proc, objs[o].disp))
			continue;
		for (uint32_t k = 0; k < g->disp_cnt; k++) {
			if (disps[k] != objs[o].disp)
				continue;
			(void)pr_proc_write(t->proc, base + g->disp_off + k * 8, &zero, 8);
			disps[k] = 0;
		}
		for (size_t e = 0; e < objs[o].n; e++) {
			uint64_t sem = t->ecbs[objs[o].idx[e]].probe->sem;
			for (uint32_t k = 0; k < g->sem_cnt; k++) {
				if (sems[k] != sem)
					continue;
				(void)pr_proc_write(t->proc, base + g->sem_off + k * 8, &zero, 8);
				sems[k] = 0;
			}
		}
	}
}

/* Steps 5 to 7 for the ECBs from first on, grouped by object. */
static void publish(struct cs_trace *t, size_t first)
{
	struct cs_late *l = t->late;
	size_t n = t->ecb_cnt - first, nobj = 0, *all = udt__xcalloc(n + 1, sizeof(*all));
	struct object *objs = udt__xcalloc(n + 1, sizeof(*objs));

	for (size_t i = first; i < t->ecb_cnt; i++) {
		const struct pb_probe *pr = t->ecbs[i].probe;
		size_t o = 0;

		all[i - first] = i;
		while (o < nobj && objs[o].disp != pr->dispatch)
			o++;
		if (o == nobj) {
			objs[nobj++] = (struct object){ .disp = pr->dispatch, .mod = pr->module,
							.idx = udt__xcalloc(n + 1, sizeof(size_t)) };
		}
		objs[o].idx[objs[o].n++] = i;
	}
	/* one generation for all of them, or one per object when they do not fit together */
	uint32_t tab = t->sites_tab;
	uint64_t *old = udt__xcalloc(t->site_cnt + 1, sizeof(*old));
	size_t nold = t->site_cnt;
	if (nold)
		memcpy(old, t->sites, nold * sizeof(*old));
	struct cs_gen *gens = udt__xcalloc(nobj + 1, sizeof(*gens));
	size_t ngens = 0;
	int err = add_gen(t, all, n, &gens[0]);
	if (!err)
		ngens = 1;
	for (size_t o = 0; o < nobj && err == -ENOSPC; o++) {
		int e = add_gen(t, objs[o].idx, objs[o].n, &gens[ngens]);
		if (e == -ENOSPC)
			say_full(t, objs[o].mod ? objs[o].mod->name : "?");
		ngens += !e;
	}
	/* step 6: a table unregistered before the publication was not struck by the runtime */
	uint32_t now;
	if (ngens && !pr_proc_registry_gen(t->proc, &now) && now != l->reg_gen &&
	    !pr_proc_sync(t->proc, &now))
		for (size_t i = 0; i < ngens; i++)
			strike_gone(t, &gens[i], objs, nobj);
	/* step 7 */
	for (size_t i = 0; i < ngens; i++)
		(void)cs__gen_enable(t, &gens[i]);
	/* and the runtime patches the new table's sites */
	if (t->sites_tab != tab)
		cs__sites_arm_late(t, old, nold);
	free(old);
	free(gens);
	for (size_t o = 0; o < nobj; o++)
		free(objs[o].idx);
	free(objs);
	free(all);
}

/*
 * The probes of the modules mapped since the last round (a dlopen()) that no
 * registration brings, into batch b: their SystemTap notes' (for a program
 * that names processes' probes), and the pid provider's, its descriptions
 * matched in them as at the start. Not while the dynamic linker is mapping
 * one: the next round looks again.
 */
static size_t late_mods(struct cs_trace *t, struct pb_probes *b)
{
	struct cs_late *l = t->late;
	size_t made = 0;

	if (t->proc->mod_cnt == l->mods_seen)
		return 0;
	if (pr_proc_loader_busy(t->proc)) {
		pr_proc_maps_recheck(t->proc);
		return 0;
	}
	if (l->notes)
		made += pb_probes_add_notes_late(b, t->proc, l->mods_seen);
	for (size_t d = 0; d < l->pid_cnt; d++) {
		char *err = NULL;
		int n = pb_probes_add_pid_late(b, t->proc, l->pid_descs[d], l->mods_seen, &err);
		if (n < 0) {
			fflush(t->out);
			fprintf(stderr, "dtrace: %s\n", err);
			free(err);
			continue;
		}
		made += (size_t)n;
	}
	l->mods_from = l->mods_seen;
	l->mods_seen = t->proc->mod_cnt;
	return made;
}

static void late_round(struct cs_trace *t);

bool cs__late_watching(const struct cs_trace *t)
{
	return t->late && t->late->pid_cnt;
}

/*
 * A round, then the registry gen it acted on said to the target: a table
 * registered waits in udt__register() until then (UDT_CTL_LOADWAIT), so
 * that a library's probes are enabled before its dlopen() returns.
 */
void cs__late_poll(struct cs_trace *t)
{
	struct cs_late *l = t->late;

	if (!l || !t->attached || t->target_gone)
		return;
	late_round(t);
	if (l->synced && (!l->acked || l->acked_gen != l->reg_gen) &&
	    !pr_proc_write(t->proc, CTL_FIELD(reg_acked), &l->reg_gen, sizeof(l->reg_gen))) {
		l->acked = true;
		l->acked_gen = l->reg_gen;
	}
}

static void late_round(struct cs_trace *t)
{
	struct cs_late *l = t->late;
	uint32_t gen, synced_gen;
	bool regs, maps;

	regs = !pr_proc_registry_gen(t->proc, &gen) && !(l->synced && gen == l->reg_gen);
	/* (the pid provider's and the notes': any library, with our tables or not) */
	maps = (l->pid_cnt || l->notes) && pr_proc_maps_moved(t->proc);
	if (maps && pr_proc_loader_busy(t->proc)) {
		pr_proc_maps_recheck(t->proc); /* (the next round looks again) */
		maps = false;
	}
	if (!regs && !maps)
		return;
	if (regs) {
		forget_unloaded(t);
		int err = pr_proc_sync(t->proc, &synced_gen);
		if (err && !maps)
			return;
		/*
		 * The gen read before the lists were: an object unloaded after
		 * forget_unloaded() read them and loaded again at the same place before the
		 * sync looks known to the sync; the gen it moved makes the next round look
		 * again, and see it struck.
		 */
		if (!err) {
			l->reg_gen = gen;
			l->synced = true;
		}
	}
	if (maps && pr_proc_rescan(t->proc)) {
		pr_proc_maps_recheck(t->proc); /* (the next round tries again) */
		return;
	}

	struct pb_probes *b = udt__xcalloc(1, sizeof(*b));
	/* (numbered after every probe of every process: IDs are the session's) */
	size_t n = pb_probes_add_new(b, t->proc, t->probes.types, cs__probe_ids(t, 0));
	if (l->pid_cnt || l->notes)
		n += late_mods(t, b);
	if (!n) {
		pb_probes_free(b);
		free(b);
		return;
	}
	(void)cs__probe_ids(t, (uint32_t)n);
	UDT__PUSH(l->batches, l->batch_cnt, l->batch_cap, b);
	size_t first = t->ecb_cnt;
	compile_batch(t, b);
	if (t->ecb_cnt > first)
		publish(t, first);
}
