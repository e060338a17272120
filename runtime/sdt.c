/* SPDX-License-Identifier: MIT */
/*
 * SDT(9) probes: providers and probes a program defines with the macros of
 * udtrace/sdt.h, registered with no `dtrace -G` step.
 *
 * Each SDT_PROVIDER_DEFINE gives its executable or library a provider struct
 * pointing to the bounds of that object's linker set of probe definitions
 * (section udt_sdt_probes, one struct udt_sdt_probe per SDT_PROBE_DEFINE*),
 * a constructor that calls udt__sdt_register() with it, and an allocated
 * note (owner "udtrace", type 1) that refers to it. The runtime's own
 * constructor walks the notes of the objects already loaded
 * (udt__register_loaded(), registry.c): they are relocated but not all
 * initialised yet, and under dtrace -c the consumer attaches before the
 * program's constructors run, and a runtime loaded later (dtrace -p's
 * injection) comes after them. A provider registers once, whichever comes
 * first. The set holds every
 * provider's probes of the object, so the provider picks out its own. They
 * become a probe table (runtime/tables.c) whose references point to the
 * probes' semaphores and to the provider's dispatch pointer, registered in
 * udt__registry: from there on a consumer finds, lists and enables them
 * exactly as it does a -G object's probes (it reads the registry), and the
 * sites call udt__fire through the provider's dispatch pointer.
 *
 * The destructor (program exit, dlclose) unregisters the table, which strikes
 * the semaphores and the dispatch pointer from a live session's undo lists,
 * and frees it. Constructors and destructors run under the dynamic linker's
 * lock, one at a time; nothing here runs on the probe path. An object
 * loaded before the runtime has no destructor call to make (its weak
 * reference was bound to nothing): docs/injection.md says what that leaves.
 */
#include "runtime/internal.h"
#include "runtime/tables.h"

#include <stdlib.h>
#include <string.h>

#include "udtrace/sdt.h"

/* The smallest definition this runtime reads: version 1's. */
#define SDT_PROBE_MIN_SZ sizeof(struct udt_sdt_probe)

/* The next definition of the set: each says its own size (older or newer headers). */
static struct udt_sdt_probe *next_def(struct udt_sdt_probe *p)
{
	return (struct udt_sdt_probe *)((char *)p + ((p->size + 7) & ~7u));
}

static bool def_ok(const struct udt_sdt_probe *p, const struct udt_sdt_probe *stop)
{
	return p->size >= SDT_PROBE_MIN_SZ &&
	       (size_t)((const char *)stop - (const char *)p) >= p->size && p->sem && p->name &&
	       p->narg_cnt <= 32 && (!p->narg_cnt || p->types);
}

/* The types of a definition's arguments. */
static void args_of(const struct udt_sdt_probe *d, struct rt_targ *nargs, struct rt_targ *xargs)
{
	for (uint32_t a = 0; a < d->narg_cnt; a++) {
		rt_ctype_classify(d->types[a], 0, &nargs[a]);
		nargs[a].mapping = (uint8_t)a;
		if (xargs) {
			rt_ctype_classify(d->xtypes[a], 1, &xargs[a]);
			xargs[a].mapping = (uint8_t)a;
		}
	}
}

UDT_EXPORT void udt__sdt_register(struct udt_sdt_provider *prov)
{
	struct rt_tprobe *probes = NULL;
	struct rt_targ *args = NULL;
	struct udt_table_hdr *table;
	struct udt_sdt_probe *start, *stop;
	size_t cnt = 0, arg_cnt = 0, used = 0;

	if (!prov || prov->size < sizeof(*prov) || prov->version != UDT__SDT_ABI || prov->rt ||
	    !prov->name)
		return;
	start = prov->start;
	stop = prov->stop;
	if (!start || !stop || stop < start)
		start = stop = NULL; /* a provider without probes in its object */
	for (struct udt_sdt_probe *p = start; p < stop && def_ok(p, stop); p = next_def(p)) {
		if (p->provider != prov)
			continue;
		cnt++;
		arg_cnt += (size_t)p->narg_cnt * ((p->flags & UDT__SDT_XLATE) ? 2 : 1);
	}
	probes = calloc(cnt ? cnt : 1, sizeof(*probes));
	args = calloc(arg_cnt ? arg_cnt : 1, sizeof(*args));
	if (!probes || !args)
		goto out;
	cnt = 0;
	for (struct udt_sdt_probe *p = start; p < stop && def_ok(p, stop); p = next_def(p)) {
		struct rt_tprobe *t = &probes[cnt];
		bool xlate = (p->flags & UDT__SDT_XLATE) && p->xtypes;

		if (p->provider != prov)
			continue;
		cnt++;
		t->name = p->name;
		t->mod = p->mod;
		t->func = p->func;
		t->sem = p->sem;
		t->narg_cnt = p->narg_cnt;
		t->nargs = &args[used];
		used += p->narg_cnt;
		if (xlate) {
			t->xarg_cnt = p->narg_cnt;
			t->xargs = &args[used];
			used += p->narg_cnt;
		}
		args_of(p, (struct rt_targ *)t->nargs, (struct rt_targ *)t->xargs);
	}
	table = rt_table_build(prov->name, probes, cnt, &prov->dispatch);
	if (!table)
		goto out;
	prov->rt = table;
	udt__register(table);
out:
	free(probes);
	free(args);
}

UDT_EXPORT void udt__sdt_unregister(struct udt_sdt_provider *prov)
{
	struct udt_table_hdr *table;

	if (!prov || prov->size < sizeof(*prov) || !prov->rt)
		return;
	table = prov->rt;
	prov->rt = NULL;
	udt__unregister(table);
	free(table);
}
