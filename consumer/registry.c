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
 * from the target's memory and checked like a file's (cs_table_open); it
 * belongs to the module that holds its dispatch pointer (an SDT provider's
 * object, whose name is then the probes' module), or, when no module
 * readable here holds it (a dynamic provider's in-memory object, a mapping
 * of a memfd), to a module of its own without a file, named by the table.
 *
 * The target changes its registry while we read it: a table may be
 * unregistered and freed between reading its slot and reading it. Reading
 * freed memory gives bytes that fail the checks, or an old table whose
 * semaphores are no longer mapped (enabling it then fails to write them,
 * which the consumer reports); it never gives the consumer a table it has
 * not checked.
 */
#include "consumer/proc.h"

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

static bool known_table(const struct cs_proc *p, uint64_t addr)
{
	for (size_t m = 0; m < p->mod_cnt; m++)
		for (size_t k = 0; k < p->mods[m].table_cnt; k++)
			if (p->mods[m].tables[k].addr == addr)
				return true;
	return false;
}

/* Read and check the table at addr; 0 and *ret, or a negative errno (-EINVAL: not a table). */
static int read_table(const struct cs_proc *p, uint64_t addr, struct cs_ptable *ret)
{
	struct udt_table_hdr h;
	void *copy;
	int err;

	err = cs_proc_read(p, addr, &h, sizeof(h));
	if (err)
		return err;
	if (h.magic != UDT_TABLE_MAGIC || h.total_sz < sizeof(h) || h.total_sz > TABLE_MAX_SZ)
		return -EINVAL;
	copy = malloc(h.total_sz);
	if (!copy)
		return -ENOMEM;
	err = cs_proc_read(p, addr, copy, h.total_sz);
	if (!err)
		err = cs_table_open(&ret->t, copy, h.total_sz);
	if (err) {
		free(copy);
		return err;
	}
	ret->copy = copy;
	ret->addr = addr;
	return 0;
}

static int push_table(struct cs_module *mod, struct cs_ptable *pt)
{
	struct cs_ptable *nt = udt__reallocarray(mod->tables, mod->table_cnt + 1, sizeof(*nt));

	if (!nt)
		return -ENOMEM;
	mod->tables = nt;
	mod->tables[mod->table_cnt++] = *pt;
	return 0;
}

/* A module without a file for a table no mapped object holds, named by its provider. */
static int add_fileless(struct cs_proc *p, struct cs_ptable *pt)
{
	struct cs_module *nm = udt__reallocarray(p->mods, p->mod_cnt + 1, sizeof(*nm));
	struct cs_module *mod;
	const char *name = "";

	if (!nm)
		return -ENOMEM;
	p->mods = nm;
	mod = &p->mods[p->mod_cnt];
	memset(mod, 0, sizeof(*mod));
	if (pt->t.hdr.probe_cnt)
		name = cs_table_probe_module(&pt->t, 0);
	mod->path = strdup(name);
	if (!mod->path)
		return -ENOMEM;
	mod->name = mod->path;
	mod->syms_loaded = true; /* none */
	p->mod_cnt++;
	return push_table(mod, pt);
}

int cs_proc_load_registry(struct cs_proc *p)
{
	struct reg_hdr rh;
	uint64_t addr, *slots = NULL;
	uint32_t n;
	int err;

	if (cs_proc_lookup(p, "udt__registry", &addr, NULL))
		return 0; /* no runtime: nothing registered */
	if (cs_proc_read(p, addr, &rh, sizeof(rh)) || rh.size < sizeof(rh))
		return 0; /* not written yet: no table registered */
	n = rh.cnt;
	if (n > (rh.size - sizeof(rh)) / 8)
		n = (uint32_t)((rh.size - sizeof(rh)) / 8);
	if (n > REG_SLOTS_MAX)
		n = REG_SLOTS_MAX;
	if (!n)
		return 0;
	slots = calloc(n, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	err = cs_proc_read(p, addr + sizeof(rh), slots, (size_t)n * 8);
	if (err) {
		free(slots);
		return 0;
	}
	for (uint32_t i = 0; i < n; i++) {
		struct cs_ptable pt = { 0 };
		struct cs_module *mod;
		uint64_t disp;

		if (!slots[i] || known_table(p, slots[i]))
			continue;
		err = read_table(p, slots[i], &pt);
		if (err == -ENOMEM)
			break;
		if (err) {
			err = 0; /* unregistered meanwhile, or not a table: skipped */
			continue;
		}
		disp = pt.addr + offsetof(struct udt_table_hdr, dispatch_rel) +
		       (uint64_t)pt.t.hdr.dispatch_rel;
		mod = cs_proc_module_at(p, disp);
		err = mod ? push_table(mod, &pt) : add_fileless(p, &pt);
		if (err) {
			free(pt.copy);
			break;
		}
	}
	free(slots);
	return err;
}
