/* SPDX-License-Identifier: MIT */
/*
 * The probe tables a target's runtime registered that no file holds: the
 * tables the runtime makes itself for SDT(9) providers and for providers
 * declared at run time (docs/format.md §2 and §3).
 *
 * The runtime keeps every registered table's address in udt__registry
 * (runtime/internal.h: size, a count that only grows, slots zeroed when a
 * table is unregistered). A table that a module's .udtrace.table section
 * already gave (a -G object's) is skipped by its address. Any other is read
 * from the target's memory and checked like a file's (pr_table_open); it
 * belongs to the module that holds its dispatch pointer (an SDT provider's
 * object, whose name is then the probes' module), or, when no module
 * readable here holds it (a dynamic provider's in-memory object, a mapping
 * of a memfd), to a module of its own without a file, named by the table.
 *
 * A session follows the registry while it runs (pr_proc_sync(), for the
 * libraries loaded after the attach: docs/runtime.md): every registration
 * and unregistration bumps its gen. A table only the registry gave and that
 * it no longer holds is marked gone (its probes stay, for the records
 * already made); an address it holds that no live table has is a new table,
 * of an object loaded since, so the mappings are read again first (its
 * module, and its file's -G tables, which its constructor registered).
 * Each live table is marked registered or not: a session enables only
 * registered tables, whose constructors have run and whose object is
 * loaded whole. An object unloaded and loaded again at the same place
 * between two looks at the registry leaves the same addresses in it; the
 * session tells it by the entries of its undo lists that the runtime struck
 * (pr_proc_forget_dispatch()).
 *
 * The target changes its registry while we read it: a table may be
 * unregistered and freed between reading its slot and reading it. Reading
 * freed memory gives bytes that fail the checks, or an old table whose
 * semaphores are no longer mapped (enabling it then fails to write them,
 * which the consumer reports); it never gives the consumer a table it has
 * not checked.
 */
#include "proc/proc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

/* The registry's layout (runtime/internal.h): a header, then 64-bit slots. */
struct reg_hdr {
	uint32_t size, cnt, gen, pad;
};

#define REG_SLOTS_MAX 65536
#define TABLE_MAX_SZ (16u << 20)

/* A table and its module are live until they are marked gone (unloaded, unregistered). */
static bool live(const struct pr_module *m, const struct pr_ptable *pt)
{
	return !m->gone && !pt->gone;
}

static bool known_table(const struct pr_proc *p, uint64_t addr)
{
	for (size_t m = 0; m < p->mod_cnt; m++)
		for (size_t k = 0; k < p->mods[m]->table_cnt; k++)
			if (live(p->mods[m], p->mods[m]->tables[k]) &&
			    p->mods[m]->tables[k]->addr == addr)
				return true;
	return false;
}

uint64_t pr_ptable_dispatch(const struct pr_ptable *pt)
{
	return pt->addr + offsetof(struct udt_table_hdr, dispatch_rel) +
	       (uint64_t)pt->t.hdr.dispatch_rel;
}

/* Read and check the table at addr; 0 and *ret, or a negative errno (-EINVAL: not a table). */
static int read_table(const struct pr_proc *p, uint64_t addr, struct pr_ptable *ret)
{
	struct udt_table_hdr h;
	void *copy;
	int err;

	err = pr_proc_read(p, addr, &h, sizeof(h));
	if (err)
		return err;
	if (h.magic != UDT_TABLE_MAGIC || h.total_sz < sizeof(h) || h.total_sz > TABLE_MAX_SZ)
		return -EINVAL;
	copy = malloc(h.total_sz);
	if (!copy)
		return -ENOMEM;
	err = pr_proc_read(p, addr, copy, h.total_sz);
	if (!err)
		err = pr_table_open(&ret->t, copy, h.total_sz);
	if (err) {
		free(copy);
		return err;
	}
	ret->copy = copy;
	ret->addr = addr;
	return 0;
}

/* A module without a file for a table no mapped object holds, named by its provider. */
static int add_fileless(struct pr_proc *p, struct pr_ptable *pt)
{
	struct pr_module mod = { 0 };
	const char *name = "";
	int err;

	if (pt->t.hdr.probe_cnt)
		name = pr_table_probe_module(&pt->t, 0);
	mod.path = strdup(name);
	if (!mod.path)
		return -ENOMEM;
	mod.name = mod.path;
	mod.syms_loaded = true; /* none */
	err = pr__module_add_table(&mod, pt);
	if (!err)
		err = pr__add_module(p, &mod);
	if (err) {
		if (mod.table_cnt)
			free(mod.tables[0]);
		free(mod.tables);
		free(mod.path);
	}
	return err;
}

/*
 * The registry as it is now: its gen (read before the slots, so that a
 * change while they are read shows at the next read of gen) and the
 * addresses in its slots (*ret_slots, malloc'ed; 0 for an empty one).
 * Return: 0, -ENOENT (no runtime, or a registry never written), -ENOMEM.
 */
static int read_registry(struct pr_proc *p, uint32_t *ret_gen, uint64_t **ret_slots,
			 uint32_t *ret_n)
{
	struct reg_hdr rh;
	uint64_t *slots;
	uint32_t n;

	if (!p->reg_addr && pr_proc_lookup(p, "udt__registry", &p->reg_addr, NULL))
		return -ENOENT;
	if (pr_proc_read(p, p->reg_addr, &rh, sizeof(rh)) || rh.size < sizeof(rh))
		return -ENOENT; /* not written yet: no table registered */
	n = rh.cnt;
	if (n > (rh.size - sizeof(rh)) / 8)
		n = (uint32_t)((rh.size - sizeof(rh)) / 8);
	if (n > REG_SLOTS_MAX)
		n = REG_SLOTS_MAX;
	slots = calloc(n + 1, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	if (n && pr_proc_read(p, p->reg_addr + sizeof(rh), slots, (size_t)n * 8)) {
		free(slots);
		return -ENOENT;
	}
	*ret_gen = rh.gen;
	*ret_slots = slots;
	*ret_n = n;
	return 0;
}

/* Read the tables of slots we do not know, each into the module holding its dispatch pointer. */
static int load_new(struct pr_proc *p, const uint64_t *slots, uint32_t n)
{
	int err = 0;

	for (uint32_t i = 0; i < n && !err; i++) {
		struct pr_ptable pt = { 0 };
		struct pr_module *mod;

		if (!slots[i] || known_table(p, slots[i]))
			continue;
		err = read_table(p, slots[i], &pt);
		if (err) {
			err = err == -ENOMEM ? err : 0; /* unregistered meanwhile, or not a table */
			continue;
		}
		mod = pr_proc_module_at(p, pr_ptable_dispatch(&pt));
		err = mod ? pr__module_add_table(mod, &pt) : add_fileless(p, &pt);
		if (err)
			free(pt.copy);
	}
	return err;
}

/* Mark each live table registered or not, by the slots. */
static void mark_registered(struct pr_proc *p, const uint64_t *slots, uint32_t n)
{
	for (size_t m = 0; m < p->mod_cnt; m++) {
		for (size_t k = 0; k < p->mods[m]->table_cnt; k++) {
			struct pr_ptable *pt = p->mods[m]->tables[k];
			pt->registered = false;
			for (uint32_t i = 0; i < n && !pt->registered; i++)
				pt->registered = slots[i] == pt->addr;
		}
	}
}

int pr_proc_load_registry(struct pr_proc *p)
{
	uint64_t *slots = NULL;
	uint32_t n = 0, gen;
	int err = read_registry(p, &gen, &slots, &n);

	if (err)
		return err == -ENOMEM ? err : 0; /* no runtime: nothing registered */
	err = load_new(p, slots, n);
	mark_registered(p, slots, n);
	free(slots);
	return err;
}

int pr_proc_registry_gen(struct pr_proc *p, uint32_t *ret_gen)
{
	if (!p->reg_addr && pr_proc_lookup(p, "udt__registry", &p->reg_addr, NULL))
		return -ENOENT;
	return pr_proc_read(p, p->reg_addr + offsetof(struct reg_hdr, gen), ret_gen,
			    sizeof(*ret_gen));
}

int pr_proc_sync(struct pr_proc *p, uint32_t *ret_gen)
{
	uint64_t *slots = NULL;
	uint32_t n = 0;
	bool unknown = false;
	int err = read_registry(p, ret_gen, &slots, &n);

	if (err)
		return err;
	/* the tables only the registry gave, and no longer in it: gone (with their
	   module when it has no file: nothing else holds it) */
	for (size_t m = 0; m < p->mod_cnt; m++) {
		struct pr_module *mod = p->mods[m];
		bool any = false;
		for (size_t k = 0; k < mod->table_cnt; k++) {
			struct pr_ptable *pt = mod->tables[k];
			bool in = false;
			for (uint32_t i = 0; i < n && !in; i++)
				in = slots[i] == pt->addr;
			if (!pt->from_file && !in)
				pt->gone = true;
			any |= !pt->gone;
		}
		if (!mod->ino && !any)
			mod->gone = true;
	}
	for (uint32_t i = 0; i < n && !unknown; i++)
		unknown = slots[i] && !known_table(p, slots[i]);
	/* an object loaded since: its module (and the tables of its file) first */
	if (unknown)
		err = pr_proc_rescan(p);
	if (!err)
		err = load_new(p, slots, n);
	mark_registered(p, slots, n);
	free(slots);
	return err;
}

void pr_proc_forget_dispatch(struct pr_proc *p, uint64_t disp)
{
	for (size_t m = 0; m < p->mod_cnt; m++) {
		struct pr_module *mod = p->mods[m];
		for (size_t k = 0; k < mod->table_cnt; k++) {
			struct pr_ptable *pt = mod->tables[k];
			if (pt->gone || pr_ptable_dispatch(pt) != disp)
				continue;
			pt->gone = true;
			if (pt->from_file)
				mod->gone = true; /* a load at the same place is another module */
		}
	}
}
