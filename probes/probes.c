/* SPDX-License-Identifier: MIT */
/*
 * Probes as DTrace shows them: provider:module:function:name.
 *
 * The probes of a process come from the probe tables of its objects
 * (proc/proc.c). As for DTrace's USDT providers, the provider's name
 * gets the process ID ("http1234"), the module is the object's file name,
 * and a probe whose sites are in several functions is one probe per
 * function, told apart at fire time by the site's address (the ECB's PC
 * range). Probe names show "__" as "-". dtrace:::BEGIN, END and ERROR are
 * probes 1 to 3; the others are numbered in table order from 4, which is the
 * same order for the same process every time.
 *
 * An object with SystemTap notes and no table of ours (docs/notes.md) has a
 * probe per provider, name and function of its notes' sites, in the order of
 * their first site, after its module's place among the tables; its
 * arguments are typed from the operands' sizes (int32_t for "-4@...").
 */
#include "probes/probes.h"
#include "abi/abi.h"
#include "util/util.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

static void add(struct pb_probes *ps, size_t *cap, struct pb_probe pr)
{
	if (!pr.id)
		pr.id = ps->id_base + (uint32_t)ps->cnt + 1;
	UDT__PUSH(ps->v, ps->cnt, *cap, pr);
}

/* The D type of a table argument, for args[]: integers by size and sign, pointers. */
static struct dl_qtype arg_type(struct dl_program *p, const struct udt_table_arg *a)
{
	static const char *const ints[2][8] = {
		{ "unsigned char", "unsigned short", NULL, "unsigned int", NULL, NULL, NULL,
		  "unsigned long long" },
		{ "char", "short", NULL, "int", NULL, NULL, NULL, "long long" },
	};

	if (a->kind == UDT_ARG_INT && a->size >= 1 && a->size <= 8 &&
	    ints[!!a->is_signed][a->size - 1])
		return (struct dl_qtype){ dl_lookup_typedef(p, ints[!!a->is_signed][a->size - 1]), 0 };
	if (a->kind == UDT_ARG_STRING)
		return (struct dl_qtype){ dl_lookup_typedef(p, "string"), 0 };
	return (struct dl_qtype){ dl_type_ptr(p, (struct dl_qtype){ dl_lookup_typedef(p, "void"),
								   0 }), 0 };
}

static struct dl_probe *make_dprobe(struct dl_program *p, const struct pr_table *t,
				    const struct udt_table_probe *tp)
{
	struct dl_probe *d = udt__xcalloc(1, sizeof(*d));

	d->name = pr_table_str(t, tp->name);
	d->narg_cnt = tp->narg_cnt;
	d->nargs = udt__xcalloc(tp->narg_cnt + 1, sizeof(*d->nargs));
	for (uint32_t i = 0; i < tp->narg_cnt; i++) {
		const struct udt_table_arg *a = pr_table_arg(t, tp->first_narg + i);
		d->nargs[i].name = pr_table_str(t, a->name);
		d->nargs[i].type = arg_type(p, a);
		d->nargs[i].ctype = pr_table_str(t, a->type);
	}
	d->translated = tp->flags & UDT_PROBE_TRANSLATED;
	d->xarg_cnt = d->translated ? tp->xarg_cnt : tp->narg_cnt;
	d->xargs = d->translated ? udt__xcalloc(tp->xarg_cnt + 1, sizeof(*d->xargs)) : d->nargs;
	d->mapping = udt__xcalloc(d->xarg_cnt + 1, 1);
	for (uint32_t i = 0; i < d->xarg_cnt; i++) {
		if (d->translated) {
			const struct udt_table_arg *a = pr_table_arg(t, tp->first_xarg + i);
			d->xargs[i].name = pr_table_str(t, a->name);
			d->xargs[i].type = arg_type(p, a);
			d->xargs[i].ctype = pr_table_str(t, a->type);
			d->mapping[i] = a->mapping;
		} else {
			d->mapping[i] = (uint8_t)i;
		}
	}
	return d;
}

/* The probes of table pt of module mod of proc: one per function its sites are in. */
static void add_table(struct pb_probes *ps, size_t *cap, struct pr_proc *proc,
		      struct pr_module *mod, struct pr_ptable *pt)
{
	const struct pr_table *t = &pt->t;
	uint64_t dispatch = pr_ptable_dispatch(pt);

	pt->probed = true;
	for (uint32_t i = 0; i < t->hdr.probe_cnt; i++) {
		const struct udt_table_probe *tp = pr_table_probe(t, i);
		const struct udt_table_provider *pv = pr_table_provider(t, tp->provider);
		struct pb_probe pr = { 0 };

		pr.prov = udt__xasprintf("%s%d", pr_table_str(t, pv->name), (int)proc->pid);
		pr.mod = pr_table_probe_module(t, i);
		if (!pr.mod[0])
			pr.mod = mod->name;
		pr.name = dl_probe_dname(pr_table_str(t, tp->name));
		pr.module = mod;
		pr.pt = pt;
		pr.index = i;
		pr.sem = pt->addr + pr_table_probe_off(t, i) + (uint64_t)tp->sem_rel;
		pr.dispatch = dispatch;
		pr.dprobe = make_dprobe(ps->types, t, tp);
		if (tp->func_cnt <= 1) {
			pr.func = tp->func_cnt ? pr_table_func(t, tp->first_func) : "";
			add(ps, cap, pr);
			continue;
		}
		for (uint32_t f = 0; f < tp->func_cnt; f++) {
			struct pb_probe pf = pr;

			pf.func = pr_table_func(t, tp->first_func + f);
			if (f) {
				pf.prov = udt__xstrdup(pr.prov);
				pf.name = udt__xstrdup(pr.name);
				pf.dprobe = make_dprobe(ps->types, t, tp);
			}
			if (pr_module_func_range(mod, pf.func, &pf.pc_lo, &pf.pc_hi))
				pf.pc_lo = pf.pc_hi = 0;
			add(ps, cap, pf);
		}
	}
}

/* The D type of a note operand of size bytes (negative: signed): int8_t ... uint64_t. */
static const char *note_ctype(int8_t size)
{
	switch (size) {
	case -1: return "int8_t";
	case 1: return "uint8_t";
	case -2: return "int16_t";
	case 2: return "uint16_t";
	case -4: return "int32_t";
	case 4: return "uint32_t";
	case -8: return "int64_t";
	default: return "uint64_t";
	}
}

static struct dl_probe *note_dprobe(struct dl_program *p, const struct pr_note *n)
{
	struct dl_probe *d = udt__xcalloc(1, sizeof(*d));

	d->name = n->name;
	d->narg_cnt = d->xarg_cnt = n->arg_cnt;
	d->nargs = udt__xcalloc(n->arg_cnt + 1, sizeof(*d->nargs));
	d->xargs = d->nargs;
	d->mapping = udt__xcalloc(n->arg_cnt + 1, 1);
	for (uint32_t i = 0; i < n->arg_cnt; i++) {
		d->nargs[i].ctype = note_ctype(n->args[i].size);
		d->nargs[i].type = (struct dl_qtype){ dl_lookup_typedef(p, d->nargs[i].ctype), 0 };
		d->mapping[i] = (uint8_t)i;
	}
	return d;
}

static int cmp_str(const char *a, const char *b)
{
	return strcmp(a, b);
}

/* Sort order of notes: provider, name, function, then as they came (pc breaks no tie). */
struct note_ord {
	struct pr_note n;
	size_t first;              /* the index of its probe's first site */
	size_t index;
};

static int note_cmp(const void *x, const void *y)
{
	const struct note_ord *a = x, *b = y;
	int c = cmp_str(a->n.prov, b->n.prov) ?: cmp_str(a->n.name, b->n.name) ?:
		cmp_str(a->n.func, b->n.func);

	return c ? c : a->index < b->index ? -1 : a->index > b->index;
}

static int first_cmp(const void *x, const void *y)
{
	const struct note_ord *a = x, *b = y;

	if (a->first != b->first)
		return a->first < b->first ? -1 : 1;
	return a->index < b->index ? -1 : a->index > b->index;
}

static bool same_probe(const struct pr_note *a, const struct pr_note *b)
{
	return !strcmp(a->prov, b->prov) && !strcmp(a->name, b->name) && !strcmp(a->func, b->func);
}

/*
 * Put the sites of each probe of mod's notes together (in place, once): each
 * site's function from the module's symbols, then the sites grouped by
 * provider, name and function, the groups in the order of their first site.
 */
static void group_notes(struct pr_proc *proc, struct pr_module *mod)
{
	size_t n = mod->note_cnt;
	struct note_ord *o;

	if (mod->notes_grouped)
		return;
	mod->notes_grouped = true;
	o = udt__xcalloc(n + 1, sizeof(*o));
	for (size_t i = 0; i < n; i++) {
		const struct pr_sym *sym;
		struct pr_module *m;

		if (!pr_proc_symbolize(proc, mod->notes[i].pc, &m, &sym) && m == mod)
			mod->notes[i].func = sym->name;
		o[i] = (struct note_ord){ .n = mod->notes[i], .index = i };
	}
	qsort(o, n, sizeof(*o), note_cmp);
	/* (a group's first element is its first site: the sort kept their order) */
	for (size_t i = 0; i < n; i++)
		o[i].first = i && same_probe(&o[i].n, &o[i - 1].n) ? o[i - 1].first : o[i].index;
	qsort(o, n, sizeof(*o), first_cmp);
	for (size_t i = 0; i < n; i++)
		mod->notes[i] = o[i].n;
	free(o);
}

/*
 * The table probe of mod among ps->v[from..] that the sites of note n join:
 * the same provider and name in the same function, or in none the table
 * names (its first such group only); NULL: none. *tp_ret: a table probe of
 * that provider and name, for the types, if any.
 */
static struct pb_probe *table_probe_of(struct pb_probes *ps, size_t from, const struct pr_note *n,
				       struct pb_probe **tp_ret)
{
	*tp_ret = NULL;
	for (size_t i = from; i < ps->cnt; i++) {
		struct pb_probe *pr = &ps->v[i];
		const struct pr_table *t = pr->pt ? &pr->pt->t : NULL;
		const struct udt_table_probe *tp = t ? pr_table_probe(t, pr->index) : NULL;
		if (!tp || strcmp(pr_table_str(t, tp->name), n->name) ||
		    strcmp(pr_table_str(t, pr_table_provider(t, tp->provider)->name), n->prov))
			continue;
		*tp_ret = pr;
		if (!strcmp(pr->func, n->func) || (!pr->func[0] && !pr->notes))
			return pr;
	}
	return NULL;
}

/*
 * The probes of mod's SystemTap notes but those of our header's (docs/notes.md):
 * a note of <sys/sdt.h> beside a table of ours joins the table's probe of
 * its provider and name (the table's types, the semaphore's key), else it is
 * a probe of its own, typed by the table where it declares the probe.
 * ps->v[from..] are mod's tables' probes.
 */
static void add_notes(struct pb_probes *ps, size_t *cap, struct pr_proc *proc,
		      struct pr_module *mod, size_t from)
{
	if (!mod->notes_grouped)
		pr_module_drop_own_notes(mod);
	if (!mod->note_cnt)
		return;
	group_notes(proc, mod);
	for (size_t i = 0, j; i < mod->note_cnt; i = j) {
		struct pr_note *n = &mod->notes[i];
		struct pb_probe pr = { 0 }, *tpr, *joined;

		for (j = i + 1; j < mod->note_cnt && same_probe(n, &mod->notes[j]); j++)
			;
		joined = table_probe_of(ps, from, n, &tpr);
		if (joined) {
			joined->notes = n;
			joined->note_cnt = (uint32_t)(j - i);
			continue;
		}
		pr.prov = udt__xasprintf("%s%d", n->prov, (int)proc->pid);
		pr.mod = mod->name;
		pr.func = n->func;
		pr.name = dl_probe_dname(n->name);
		pr.module = mod;
		pr.sem = n->pc;
		pr.notes = n;
		pr.note_cnt = (uint32_t)(j - i);
		pr.dprobe = tpr ? make_dprobe(ps->types, &tpr->pt->t, pr_table_probe(&tpr->pt->t,
										    tpr->index))
			        : note_dprobe(ps->types, n);
		add(ps, cap, pr);
	}
}

int pb_probes_load(struct pb_probes *ps, struct pr_proc *proc)
{
	if (proc)
		pb_probes_set_target((int)proc->pid);
	return pb_probes_load_at(ps, proc, PB_PROBE_ERROR + 1);
}

int pb_probes_load_at(struct pb_probes *ps, struct pr_proc *proc, uint32_t first_id)
{
	size_t cap = 0;
	static const char *const core[] = { "BEGIN", "END", "ERROR" };

	memset(ps, 0, sizeof(*ps));
	ps->types = dl_program_new(DL_LP64);
	/* the tables only the runtime has (SDT(9), dynamic); without memory, none */
	if (proc)
		(void)pr_proc_load_registry(proc);
	for (uint32_t i = 0; i < 3; i++) {
		struct pb_probe pr = { .id = PB_PROBE_BEGIN + i, .prov = udt__xstrdup("dtrace"),
				       .mod = "", .func = "", .name = udt__xstrdup(core[i]) };
		add(ps, &cap, pr);
	}
	/* (the process's probes are numbered from first_id) */
	ps->id_base = first_id - 1 - (uint32_t)ps->cnt;
	for (size_t m = 0; proc && m < proc->mod_cnt; m++) {
		size_t from = ps->cnt;
		for (size_t k = 0; k < proc->mods[m]->table_cnt; k++)
			add_table(ps, &cap, proc, proc->mods[m], proc->mods[m]->tables[k]);
		add_notes(ps, &cap, proc, proc->mods[m], from);
	}
	return 0;
}

size_t pb_probes_add_new(struct pb_probes *ps, struct pr_proc *proc, struct dl_program *types,
			 uint32_t first_id)
{
	size_t cap = 0;

	memset(ps, 0, sizeof(*ps));
	ps->types = types;
	ps->borrowed_types = true;
	ps->id_base = first_id - 1;
	for (size_t m = 0; m < proc->mod_cnt; m++) {
		struct pr_module *mod = proc->mods[m];
		for (size_t k = 0; k < mod->table_cnt; k++) {
			struct pr_ptable *pt = mod->tables[k];
			if (!mod->gone && !pt->gone && pt->registered && !pt->probed)
				add_table(ps, &cap, proc, mod, pt);
		}
	}
	return ps->cnt;
}

size_t pb_probes_add_notes_late(struct pb_probes *ps, struct pr_proc *proc, size_t mod_from)
{
	size_t cap = ps->cnt, before = ps->cnt;

	/* (an object of ours has its probes from its tables, as they register) */
	for (size_t m = mod_from; m < proc->mod_cnt; m++) {
		struct pr_module *mod = proc->mods[m];
		if (!mod->gone && !mod->table_cnt && !mod->sdt)
			add_notes(ps, &cap, proc, mod, ps->cnt);
	}
	return ps->cnt - before;
}

void pb_probes_move(struct pb_probes *ps, struct pb_probes *from)
{
	size_t n = from->cnt - PB_PROBE_ERROR;

	ps->v = udt__xreallocarray(ps->v, ps->cnt + n, sizeof(*ps->v));
	memcpy(&ps->v[ps->cnt], &from->v[PB_PROBE_ERROR], n * sizeof(*ps->v));
	ps->cnt += n;
	from->cnt = PB_PROBE_ERROR;
}

void pb_probes_free(struct pb_probes *ps)
{
	for (size_t i = 0; i < ps->cnt; i++) {
		struct dl_probe *d = ps->v[i].dprobe;

		free(ps->v[i].prov);
		free(ps->v[i].name);
		free(ps->v[i].pid_offs);
		free(ps->v[i].part_sites);
		if (d) {
			if (d->xargs != d->nargs)
				free(d->xargs);
			free(d->nargs);
			free(d->mapping);
			free(d);
		}
	}
	free(ps->v);
	if (!ps->borrowed_types)
		dl_program_free(ps->types);
	memset(ps, 0, sizeof(*ps));
}

/* The provider field with $target replaced by pid ("http$target" -> "http1234"). */
static void expand_target(const char *s, size_t len, char *out, size_t outsz, int pid)
{
	size_t o = 0;

	for (size_t i = 0; i < len && o + 1 < outsz;) {
		if (!strncmp(s + i, "$target", 7) && i + 7 <= len) {
			o += (size_t)snprintf(out + o, outsz - o, "%d", pid);
			i += 7;
		} else {
			out[o++] = s[i++];
		}
	}
	out[o < outsz ? o : outsz - 1] = '\0';
}

static int the_target;

void pb_probes_set_target(int pid)
{
	the_target = pid;
}

static bool field_match(const char *pat, size_t len, const char *s)
{
	char buf[512];

	if (!len)
		return true;
	if (len >= sizeof(buf))
		return false;
	expand_target(pat, len, buf, sizeof(buf), the_target);
	return fnmatch(buf, s, 0) == 0;
}

bool pb_desc_id(const char *desc, uint32_t *ret_id)
{
	uint64_t id = 0;

	if (!*desc || strspn(desc, "0123456789") != strlen(desc))
		return false;
	for (const char *c = desc; *c && id <= UINT32_MAX; c++)
		id = id * 10 + (uint64_t)(*c - '0');
	*ret_id = id > UINT32_MAX ? 0 : (uint32_t)id; /* (past any probe: matches none) */
	return true;
}

/* Split desc at ':' into its four fields (fewer name the rightmost ones). false: more than four. */
static bool split_desc(const char *desc, const char *f[4], size_t len[4])
{
	const char *parts[4];
	size_t plen[4], n = 0;
	const char *s = desc;

	for (;;) {
		const char *c = strchr(s, ':');
		if (n == 4)
			return false;
		parts[n] = s;
		plen[n] = c ? (size_t)(c - s) : strlen(s);
		n++;
		if (!c)
			break;
		s = c + 1;
	}
	for (size_t i = 0; i < 4; i++) {
		f[i] = "";
		len[i] = 0;
	}
	for (size_t i = 0; i < n; i++) {
		f[4 - n + i] = parts[i];
		len[4 - n + i] = plen[i];
	}
	return true;
}

const char *pb_desc_kernel_provider(const char *desc)
{
	/* DTrace's kernel providers (illumos's, FreeBSD's and Oracle Linux's) */
	static const char *const kernel[] = {
		"syscall", "fbt", "sched", "io", "vminfo", "sysinfo", "lockstat",
		"mib", "ip", "tcp", "udp", "fsinfo", "fpuinfo", "cpc", "nfsv3", "nfsv4",
		"sdt", "rawtp", "kinst", "dtmalloc", "vfs",
	};
	const char *f[4];
	size_t len[4];

	if (!split_desc(desc, f, len) || !len[0])
		return NULL;
	for (size_t i = 0; i < sizeof(kernel) / sizeof(kernel[0]); i++)
		if (strlen(kernel[i]) == len[0] && !strncmp(f[0], kernel[i], len[0]))
			return kernel[i];
	return NULL;
}

const char *pb_runtime_hint(const struct pb_probe *pr)
{
	/* the probes of language runtimes that fire only when the runtime is asked to
	   (docs/notes.md, "Language runtimes"): provider, a name prefix, what it needs */
	static const struct {
		const char *prov, *name, *hint;
	} hints[] = {
		{ "python", "function-", "CPython 3.11 fires function-entry and function-return for "
		  "the calls it inlines (most Python-to-Python calls: cpython gh-98894) only while a "
		  "trace or profile function is set; run the script under one (docs/notes.md, "
		  "\"Python\")" },
		{ "python", "line", "CPython 3.11 fires line only while a trace function is set "
		  "(sys.settrace()); docs/notes.md, \"Python\"" },
		{ "ruby", "method-", "Ruby fires method-entry and method-return only while a "
		  "TracePoint of :call and :return is enabled (docs/notes.md, \"Ruby\")" },
		{ "ruby", "cmethod-", "Ruby fires cmethod-entry and cmethod-return only while a "
		  "TracePoint of :c_call and :c_return is enabled (docs/notes.md, \"Ruby\")" },
		{ "php", "", "PHP fires its probes only with USE_ZEND_DTRACE=1 in its environment "
		  "(docs/notes.md, \"PHP\")" },
		{ "hotspot", "method-", "the JVM fires method-entry and method-return only with "
		  "-XX:+ExtendedDTraceProbes (docs/notes.md, \"Java\")" },
		{ "hotspot", "object-alloc", "the JVM fires object-alloc only with "
		  "-XX:+ExtendedDTraceProbes (docs/notes.md, \"Java\")" },
		{ "hotspot", "monitor-", "the JVM fires its monitor probes only with "
		  "-XX:+ExtendedDTraceProbes (docs/notes.md, \"Java\")" },
	};

	if (!pr->notes || !pr->note_cnt)
		return NULL;
	for (size_t i = 0; i < sizeof(hints) / sizeof(hints[0]); i++)
		if (!strcmp(pr->notes[0].prov, hints[i].prov) &&
		    !strncmp(pr->name, hints[i].name, strlen(hints[i].name)))
			return hints[i].hint;
	return NULL;
}

/* Why the proc probe desc names (no glob) is not one a user-space proc provider has, or NULL. */
static const char *proc_unavailable(const char *desc)
{
	static const struct {
		const char *name, *why;
	} no[] = {
		{ "exec-success", "proc:::exec-success fires in the new image, whose probes udtrace "
		  "makes anew once its runtime has started there, after the image's first code has "
		  "run: trace proc:::exec, or the new program with -c" },
		{ "signal-handle", "proc:::signal-handle fires as the kernel starts a handler, which "
		  "a user-space provider does not see (trace the handler with the pid provider)" },
		{ "signal-discard", "proc:::signal-discard is the kernel's" },
		{ "fault", "proc:::fault is the kernel's (a fault reaches the process as a signal)" },
	};
	const char *f[4];
	size_t len[4];

	if (!split_desc(desc, f, len) || len[0] != 4 || strncmp(f[0], "proc", 4))
		return NULL;
	for (size_t i = 0; i < sizeof(no) / sizeof(*no); i++)
		if (len[3] == strlen(no[i].name) && !strncmp(f[3], no[i].name, len[3]))
			return no[i].why;
	return NULL;
}

char *pb_desc_nomatch(const char *desc)
{
	const char *k = pb_desc_kernel_provider(desc);

	if (k)
		return udt__xasprintf("probe description %s does not match any probes: the %s "
				      "provider is the kernel's, and udtrace traces user space "
				      "(docs/d-language.md, \"Differences from DTrace\")", desc, k);
	const char *why = proc_unavailable(desc);
	if (why)
		return udt__xasprintf("probe description %s does not match any probes: %s "
				      "(docs/proc.md)", desc, why);
	return udt__xasprintf("probe description %s does not match any probes", desc);
}

bool pb__desc_fields(const char *desc, char ret[4][512])
{
	const char *f[4];
	size_t len[4];

	if (!split_desc(desc, f, len))
		return false;
	for (int i = 0; i < 4; i++) {
		if (len[i] >= 512)
			return false;
		expand_target(f[i], len[i], ret[i], 512, the_target);
	}
	return true;
}

bool pb_desc_match(const char *desc, const struct pb_probe *pr)
{
	const char *f[4];
	size_t len[4];
	uint32_t id;

	if (pb_desc_id(desc, &id))
		return id && pr->id == id;
	if (pr->pid_kind) {
		char b[4][512];
		const char *fs[4] = { b[0], b[1], b[2], b[3] };
		return pb__desc_fields(desc, b) && pb__pid_match(fs, pr);
	}
	if (!split_desc(desc, f, len))
		return false;
	return field_match(f[0], len[0], pr->prov) && field_match(f[1], len[1], pr->mod) &&
	       field_match(f[2], len[2], pr->func) && field_match(f[3], len[3], pr->name);
}

enum pb_desc_kind pb_desc_kind(const char *desc)
{
	const char *f[4];
	size_t len[4];
	uint32_t id;

	if (pb_desc_id(desc, &id))
		return PB_DESC_ID;
	if (!split_desc(desc, f, len))
		return PB_DESC_PROC;
	/* provider (dtrace's or profile's, or none), name, and no module or function */
	bool bare = !len[1] && !len[2];
	bool core = bare && (!len[0] || (len[0] == 6 && !strncmp(f[0], "dtrace", 6))) &&
		    ((len[3] == 5 && !strncmp(f[3], "BEGIN", 5)) ||
		     (len[3] == 3 && !strncmp(f[3], "END", 3)) ||
		     (len[3] == 5 && !strncmp(f[3], "ERROR", 5)));
	bool profile = bare && (!len[0] || (len[0] == 7 && !strncmp(f[0], "profile", 7)));

	if (core)
		return PB_DESC_DTRACE;
	/* pid123, pid$target: the pid provider's (pid.c) */
	if (len[0] > 3 && !strncmp(f[0], "pid", 3) &&
	    ((len[0] == 10 && !strncmp(f[0] + 3, "$target", 7)) ||
	     strspn(f[0] + 3, "0123456789") >= len[0] - 3))
		return PB_DESC_PID;
	/* plockstat123, plockstat$target, proc: made on the pid provider's machinery (libc.c) */
	if (len[0] > 9 && !strncmp(f[0], "plockstat", 9) &&
	    ((len[0] == 16 && !strncmp(f[0] + 9, "$target", 7)) ||
	     strspn(f[0] + 9, "0123456789") >= len[0] - 9))
		return PB_DESC_PID;
	if (len[0] == 4 && !strncmp(f[0], "proc", 4))
		return PB_DESC_PID;
	if (profile && len[3] >= 5 && !strncmp(f[3], "tick-", 5))
		return PB_DESC_TICK;
	if (profile && len[3] >= 8 && !strncmp(f[3], "profile-", 8))
		return PB_DESC_PROFILE;
	return PB_DESC_PROC;
}

bool pb_desc_match_prov(const char *desc, const char *prov)
{
	const char *f[4];
	size_t len[4];

	return split_desc(desc, f, len) && field_match(f[0], len[0], prov);
}

/* The lower of two stability or class values, as DTrace combines attributes. */
static uint8_t lower(uint8_t a, uint8_t b)
{
	return a < b ? a : b;
}

static void list_verbose(const struct pb_probe *pr, FILE *out)
{
	uint8_t attr[3] = { DL_STAB_UNSTABLE, DL_STAB_UNSTABLE, DL_CLASS_COMMON };
	uint8_t arga[3] = { DL_STAB_UNSTABLE, DL_STAB_UNSTABLE, DL_CLASS_COMMON };
	const struct pr_table *t = pr->pt ? &pr->pt->t : NULL;
	const struct udt_table_probe *tp = t ? pr_table_probe(t, pr->index) : NULL;

	if (pr->notes && !tp) {
		/* the notes declare no stability: the defaults of a provider that declares none */
	} else if (pr->pid_kind == PB_PID_PART) {
		/* illumos's proc and plockstat: Evolving names and arguments, Private places */
		attr[0] = attr[1] = arga[0] = arga[1] = DL_STAB_EVOLVING;
		attr[2] = arga[2] = DL_CLASS_ISA;
	} else if (pr->pid_kind) {
		/* illumos's fasttrap: its module, function and arguments are Private */
		attr[0] = attr[1] = arga[0] = arga[1] = DL_STAB_PRIVATE;
		attr[2] = arga[2] = DL_CLASS_UNKNOWN;
	} else if (tp) {
		const struct udt_table_provider *pv = pr_table_provider(t, tp->provider);
		for (int k = 0; k < 3; k++) {
			attr[k] = pv->attr[UDT_ATTR_PROVIDER][k];
			for (int w = UDT_ATTR_MODULE; w <= UDT_ATTR_NAME; w++)
				attr[k] = lower(attr[k], pv->attr[w][k]);
			arga[k] = pv->attr[UDT_ATTR_ARGS][k];
		}
	} else {
		/* dtrace:::BEGIN and friends are Stable/Stable/Common */
		attr[0] = attr[1] = DL_STAB_STABLE;
		arga[0] = arga[1] = DL_STAB_STABLE;
	}
	fprintf(out, "\n\tProbe Description Attributes\n");
	fprintf(out, "\t\tIdentifier Names: %s\n", dl_stability_name(attr[0]));
	fprintf(out, "\t\tData Semantics:   %s\n", dl_stability_name(attr[1]));
	fprintf(out, "\t\tDependency Class: %s\n", dl_class_name(attr[2]));
	fprintf(out, "\n\tArgument Attributes\n");
	fprintf(out, "\t\tIdentifier Names: %s\n", dl_stability_name(arga[0]));
	fprintf(out, "\t\tData Semantics:   %s\n", dl_stability_name(arga[1]));
	fprintf(out, "\t\tDependency Class: %s\n", dl_class_name(arga[2]));
	fprintf(out, "\n\tArgument Types\n");
	uint32_t n = tp ? tp->xarg_cnt : 0, first = tp ? tp->first_xarg : 0;
	for (uint32_t i = 0; i < n; i++)
		fprintf(out, "\t\targs[%u]: %s\n", i, pr_table_str(t, pr_table_arg(t, first + i)->type));
	if ((pr->notes && !tp) || (pr->pid_kind == PB_PID_PART && pr->dprobe)) {
		n = (uint32_t)pr->dprobe->xarg_cnt;
		for (uint32_t i = 0; i < n; i++)
			fprintf(out, "\t\targs[%u]: %s\n", i, pr->dprobe->xargs[i].ctype);
	}
	if (!n)
		fprintf(out, "\t\tNone\n");
	/* which file named its function (a stripped library's static ones: its debug file) */
	if ((pr->pid_kind || pr->notes) && pr->module && pr->module->syms_from) {
		fprintf(out, "\n\tSymbols\n\t\t%s: %s", pr->mod, pr->module->syms_from);
		if (pr->module->debug_path)
			fprintf(out, " (%s)", pr->module->debug_path);
		fprintf(out, "\n");
	}
	if (pr->pid_kind == PB_PID_PART)
		pb__part_list_sites(pr, out);
	else if (pr->pid_kind)
		pb__pid_list_sites(pr, out);
	if (pr->notes) {
		/* where the probe comes from: its sites as the notes give them */
		fprintf(out, "\n\tProbe Sites (SystemTap notes, .note.stapsdt)\n");
		for (uint32_t i = 0; i < pr->note_cnt; i++) {
			const struct pr_note *s = &pr->notes[i];
			fprintf(out, "\t\t0x%llx", (unsigned long long)s->pc);
			if (s->sem)
				fprintf(out, " semaphore 0x%llx", (unsigned long long)s->sem);
			fprintf(out, ": %s%s\n", s->argstr[0] ? s->argstr : "(no arguments)",
				s->bad ? " (an operand udtrace cannot read)" : "");
			/* how it would be enabled (a process with shadow stacks traps more) */
			struct udt_site site = { .addr = s->pc };
			const char *why;
			if (pr_site_plan(pr->module, &site, false, &why))
				fprintf(out, "\t\t\tenabled by a jump to a trampoline\n");
			else
				fprintf(out, "\t\t\tenabled by a trap: %s\n", why);
		}
	}
	fprintf(out, "\n");
}

size_t pb_list(const struct pb_probes *ps, const char *const *descs, size_t desc_cnt,
	       bool verbose, FILE *out)
{
	size_t listed = 0;

	fprintf(out, "%5s %10s %17s %33s %s\n", "ID", "PROVIDER", "MODULE", "FUNCTION", "NAME");
	for (size_t i = 0; i < ps->cnt; i++) {
		const struct pb_probe *pr = &ps->v[i];
		bool match = desc_cnt == 0;

		for (size_t d = 0; d < desc_cnt && !match; d++)
			match = pb_desc_match(descs[d], pr);
		if (!match)
			continue;
		fprintf(out, "%5u %10s %17s %33s %s\n", pr->id, pr->prov, pr->mod, pr->func,
			pr->name);
		if (verbose)
			list_verbose(pr, out);
		listed++;
	}
	return listed;
}
