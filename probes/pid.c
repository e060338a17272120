/* SPDX-License-Identifier: MIT */
/*
 * The pid provider's probes (docs/pid.md): made on demand when a probe
 * description names them, as illumos's dt_pid.c makes them, in the process
 * of -p or -c:
 *
 *	pid<PID>:<module>:<function>:entry     the function's first instruction
 *	pid<PID>:<module>:<function>:return    each way out of it (proc/reloc.c)
 *	pid<PID>:<module>:<function>:<offset>  the instruction at a hex offset
 *	pid<PID>:a.out:-:<address>             the instruction at an address
 *
 * A module is named by its file name (libc.so.6), by a prefix of it that
 * ends before a '.' (libc, libc.so), or, for the executable, a.out; a glob
 * is matched against the file name. A function is named by any of its
 * symbols (the probe then has the preferred one's name, as DTrace's has:
 * proc.c's order), a glob matching any of them. A name that is a glob makes
 * the entry and return probes it matches, and a probe at every offset whose
 * hexadecimal text it matches. Errors are DTrace's (its D_PROC_* messages).
 *
 * The runtime's own library is never instrumented: its functions run the
 * fire itself. pb_pid_sites() plans the sites of the probes a session
 * enables (a jump, a trap, joined or stretched), for consumer/sites.c to lay
 * out.
 */
#include "probes/probes.h"
#include "util/util.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static bool is_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/* Does pattern pat (a glob or not) match s? */
static bool gmatch(const char *pat, const char *s)
{
	return fnmatch(pat, s, 0) == 0;
}

/* A symbol's name without its version ("memcpy@GLIBC_2.2.5": "memcpy"), into buf. */
static const char *plain(const char *sym, char *buf, size_t sz)
{
	const char *at = strchr(sym, '@');

	if (!at)
		return sym;
	snprintf(buf, sz, "%.*s", (int)(at - sym), sym);
	return buf;
}

/* Is mod the runtime's own library (udtrace's: never instrumented)? */
static bool runtime_mod(const struct pr_module *mod)
{
	return !strncmp(mod->name, "libudtrace", 10);
}

/*
 * Does module field f name mod, as illumos's libproc names objects: its
 * file name or path, a prefix of its file name that ends before a '.', or
 * a.out for the executable? A glob is matched against the file name.
 */
bool pb__mod_match(const char *f, const struct pr_module *mod, bool is_exe)
{
	size_t n = strlen(f);

	if (!*f)
		return true;
	if (is_glob(f))
		return gmatch(f, mod->name);
	return !strcmp(f, mod->name) || (mod->path && !strcmp(f, mod->path)) ||
	       (!strncmp(mod->name, f, n) && mod->name[n] == '.') ||
	       (is_exe && !strcmp(f, "a.out"));
}

/* Does function field f match a name of the function whose symbols are syms (n of them)? */
bool pb__func_match(const char *f, const struct pr_sym *syms, size_t n, const char **ret_name)
{
	char buf[512];

	for (size_t i = 0; i < n; i++) {
		const char *s = plain(syms[i].name, buf, sizeof(buf));
		if (syms[i].func && (!*f || gmatch(f, s))) {
			*ret_name = syms[i].name;
			return true;
		}
	}
	return false;
}

/* A hex offset ("1a", no "0x"), all of s: true with *ret. */
static bool hex_offset(const char *s, uint64_t *ret)
{
	uint64_t v = 0;

	if (!*s || strlen(s) > 16)
		return false;
	for (const char *c = s; *c; c++) {
		int d = *c >= '0' && *c <= '9' ? *c - '0' : *c >= 'a' && *c <= 'f' ? *c - 'a' + 10
			: *c >= 'A' && *c <= 'F' ? *c - 'A' + 10 : -1;
		if (d < 0)
			return false;
		v = v << 4 | (uint64_t)d;
	}
	*ret = v;
	return true;
}

/*
 * The pid probes a description has made or found: by key (kind and address,
 * UDT_PID_KEY()), their function's start (two symbols that overlap are two
 * functions, each its probes) and whether it is '-' (an address's probe is
 * another than the offset's at the same place), in an open-addressed set.
 */
struct made_set {
	struct { uint64_t key, fn; bool dash; } *v;
	size_t cap, cnt;
};

static size_t made_slot(const struct made_set *s, uint64_t key, uint64_t fn, bool dash)
{
	size_t i = (size_t)(((key ^ fn) * 0x9e3779b97f4a7c15ull) >> 20) & (s->cap - 1);

	while (s->v[i].key && (s->v[i].key != key || s->v[i].fn != fn || s->v[i].dash != dash))
		i = (i + 1) & (s->cap - 1);
	return i;
}

/* Add (key, fn, dash) to s (key is never 0): false when it was there. */
static bool made_add(struct made_set *s, uint64_t key, uint64_t fn, bool dash)
{
	if (2 * (s->cnt + 1) > s->cap) {
		struct made_set g = { .cap = s->cap ? 2 * s->cap : 1024 };
		g.v = udt__xcalloc(g.cap, sizeof(*g.v));
		for (size_t i = 0; i < s->cap; i++)
			if (s->v[i].key)
				g.v[made_slot(&g, s->v[i].key, s->v[i].fn, s->v[i].dash)] = s->v[i];
		g.cnt = s->cnt;
		free(s->v);
		*s = g;
	}
	size_t i = made_slot(s, key, fn, dash);
	if (s->v[i].key)
		return false;
	s->v[i].key = key;
	s->v[i].fn = fn;
	s->v[i].dash = dash;
	s->cnt++;
	return true;
}

/* What a description makes in one module: the probes, and what it says when they fail. */
struct make {
	struct pb_probes *ps;
	const char *prov;
	const char *desc;
	struct pr_module *mod;
	bool exe;
	const char *name;          /* the name field ("*" when empty) */
	size_t made;
	char *err;                 /* the first error (DTrace's words: its tag's) */
	struct made_set have;      /* ps's pid probes of this provider */
};

/* Add a pid probe (kind, named name: owned) of function fn at offsets offs (owned). */
static void add_probe(struct make *m, const struct pr_func *fn, uint8_t kind, char *name,
		      uint32_t *offs, uint32_t cnt, const char *why)
{
	uint64_t key = UDT_PID_KEY(kind == PB_PID_ENTRY ? UDT_PID_ENTRY : kind == PB_PID_RETURN
				   ? UDT_PID_RETURN : UDT_PID_OFFSET,
				   kind == PB_PID_OFFSET ? fn->addr + *offs : fn->addr);
	if (!made_add(&m->have, key, fn->addr, !strcmp(fn->name, "-"))) {
		free(name);
		free(offs);
		m->made++;
		return;
	}
	struct pb_probe pr = {
		.id = m->ps->id_base + (uint32_t)m->ps->cnt + 1,
		.prov = udt__xstrdup(m->prov),
		.mod = m->mod->name,
		.func = fn->name,
		.name = name,
		.module = m->mod,
		.pid_kind = kind,
		.pid_exe = m->exe,
		.fn_lo = fn->addr,
		.fn_hi = fn->addr + fn->size,
		.fn_syms = fn->syms,
		.fn_nsyms = fn->nsyms,
		.pid_offs = offs,
		.pid_cnt = cnt,
		.pid_why = why,
	};
	pr.sem = key;
	size_t cap = m->ps->cnt;
	UDT__PUSH(m->ps->v, m->ps->cnt, cap, pr);
	m->made++;
}

/* The probes of name field m->name in function fn. */
static void make_in_func(struct make *m, const struct pr_func *fn)
{
	const char *name = m->name;
	bool glob = is_glob(name);
	struct pr_func_text ft;
	const char *why = NULL;
	uint64_t off;
	bool text = false;

	if (gmatch(name, "entry")) {
		uint32_t *o = udt__xcalloc(1, sizeof(*o));
		add_probe(m, fn, PB_PID_ENTRY, udt__xstrdup("entry"), o, 1, NULL);
	}
	bool ret = gmatch(name, "return");
	bool offs = glob || (!ret && !gmatch(name, "entry"));
	if (!ret && !offs)
		return;
	if (pr_func_text(m->mod, fn->addr, fn->addr + fn->size, &ft, &why)) {
		if (!glob && !m->err) {
			m->err = udt__xasprintf("failed to create %s probe for '%s': %s",
						ret ? "return" : "offset", fn->name, why);
		}
		pr_func_text_free(&ft);
		return;
	}
	text = true;
	if (ret) {
		uint32_t *o = udt__xcalloc(ft.cnt + 1, sizeof(*o));
		uint32_t n = 0;
		for (size_t i = 0; i < ft.cnt; i++)
			if (pr_func_returns(&ft, i))
				o[n++] = ft.v[i].off;
		add_probe(m, fn, PB_PID_RETURN, udt__xstrdup("return"), o, n,
			  n ? NULL : ft.jump_table ? "it has an indirect jmp (a jump table?), and then "
						     "only a ret after leave is a return's place, "
						     "as in illumos"
						   : "no ret or jump out of it was found");
	}
	if (!offs)
		goto out;
	/* illumos's rule: no offset probe in a function whose indirect jmp may take a table
	   (its instructions may not be what a linear decode finds) */
	if (ft.jump_table)
		goto out;
	if (!glob) {
		if (!hex_offset(name, &off)) {
			m->err = udt__xasprintf("'%s' is an invalid probe name", name);
			goto out;
		}
		if (off >= fn->size) {
			m->err = udt__xasprintf("offset 0x%llx outside of function '%s'",
						(unsigned long long)off, fn->name);
			goto out;
		}
		size_t i = 0;
		while (i < ft.cnt && ft.v[i].off < off)
			i++;
		if (i == ft.cnt || ft.v[i].off != off) {
			m->err = udt__xasprintf("offset 0x%llx is not aligned on an instruction",
						(unsigned long long)off);
			goto out;
		}
		uint32_t *o = udt__xcalloc(1, sizeof(*o));
		*o = (uint32_t)off;
		add_probe(m, fn, PB_PID_OFFSET, udt__xasprintf("%llx", (unsigned long long)off), o, 1,
			  NULL);
		goto out;
	}
	for (size_t i = 0; i < ft.cnt; i++) {
		char buf[24];
		snprintf(buf, sizeof(buf), "%x", ft.v[i].off);
		if (!gmatch(name, buf))
			continue;
		uint32_t *o = udt__xcalloc(1, sizeof(*o));
		*o = ft.v[i].off;
		add_probe(m, fn, PB_PID_OFFSET, udt__xstrdup(buf), o, 1, NULL);
	}
out:
	if (text)
		pr_func_text_free(&ft);
}

/* The probes of function field func and name field m->name in module m->mod. */
static void make_in_mod(struct make *m, const char *func, bool *ret_found)
{
	struct pr_func *fns;
	size_t n = pr_module_funcs(m->mod, &fns);

	for (size_t i = 0; i < n && !m->err; i++) {
		const char *matched;
		if (!pb__func_match(func, fns[i].syms, fns[i].nsyms, &matched))
			continue;
		*ret_found = true;
		make_in_func(m, &fns[i]);
	}
	free(fns);
}

/* pid<PID>:a.out:-:<address>: the instruction at an absolute address of the executable. */
static int make_at_address(struct make *m, struct pr_proc *proc, const char *modf)
{
	struct pr_module *exe = pr_proc_exe(proc);
	const struct pr_sym *sym;
	uint64_t addr;

	if (*modf && (!exe || !pb__mod_match(modf, exe, true))) {
		m->err = udt__xstrdup("only the a.out module is valid with the '-' function");
		return -1;
	}
	if (is_glob(m->name) || !hex_offset(m->name, &addr)) {
		m->err = udt__xstrdup("only individual addresses may be specified with the '-' "
				      "function");
		return -1;
	}
	if (!exe || pr_module_symbolize(exe, addr, &sym) || !sym->func || !sym->size) {
		m->err = udt__xasprintf("address 0x%llx is in no function of a.out",
					(unsigned long long)addr);
		return -1;
	}
	/* (a probe at the address, in the function that holds it: its instruction's boundary) */
	struct pr_func fn = { .name = "-", .addr = sym->addr, .size = sym->size, .syms = sym,
			      .nsyms = 1 };
	struct pr_func_text ft;
	const char *why;
	int err = pr_func_text(exe, fn.addr, fn.addr + fn.size, &ft, &why);
	bool on = false;
	for (size_t i = 0; !err && i < ft.cnt; i++)
		on |= fn.addr + ft.v[i].off == addr;
	pr_func_text_free(&ft);
	if (!on) {
		m->err = udt__xasprintf("address 0x%llx is not aligned on an instruction",
					(unsigned long long)addr);
		return -1;
	}
	uint32_t *o = udt__xcalloc(1, sizeof(*o));
	*o = (uint32_t)(addr - fn.addr);
	m->mod = exe;
	m->exe = true;
	add_probe(m, &fn, PB_PID_OFFSET, udt__xasprintf("%llx", (unsigned long long)addr), o, 1,
		  NULL);
	return 0;
}

/* pb_probes_add_pid() in the modules from mod_from on; late: those loaded since the start. */
static int add_pid(struct pb_probes *ps, struct pr_proc *proc, const char *desc, size_t mod_from,
		   bool late, char **ret_err)
{
	char field[4][512];
	uint64_t pid = 0;

	*ret_err = NULL;
	if (!pb__desc_fields(desc, field))
		return 0;
	const char *pv = field[0];
	if (pb__libc_provider(pv))
		return pb__libc_add(ps, proc, field, desc, mod_from, ret_err);
	/* pid<digits>: ours; pid followed by anything else is another provider's name */
	if (strncmp(pv, "pid", 3) || !pv[3] || strspn(pv + 3, "0123456789") != strlen(pv + 3))
		return 0;
	for (const char *c = pv + 3; *c && pid <= 0xffffffffull; c++)
		pid = pid * 10 + (uint64_t)(*c - '0');
	if (!pid || pid > 0x7fffffff) {
		*ret_err = udt__xasprintf("invalid probe specifier %s: '%s' does not contain a valid "
					  "pid", desc, pv);
		return -1;
	}
	if (!proc || (pid_t)pid != proc->pid) {
		*ret_err = udt__xasprintf("invalid probe specifier %s: the pid provider makes its "
					  "probes in the process of -p or -c, and pid %llu is not it "
					  "(use -p %llu)", desc, (unsigned long long)pid,
					  (unsigned long long)pid);
		return -1;
	}
	struct make m = { .ps = ps, .prov = pv, .desc = desc,
			  .name = field[3][0] ? field[3] : "*" };
	const char *modf = field[1], *func = field[2];
	struct pr_module *exe = pr_proc_exe(proc);
	bool found = false, mod_found = false;

	if (!strcmp(func, "-") && late)
		return 0; /* (an address of the executable: never in a library loaded later) */
	for (size_t i = 0; i < ps->cnt; i++)
		if (ps->v[i].pid_kind && !strcmp(ps->v[i].prov, pv))
			(void)made_add(&m.have, ps->v[i].sem, ps->v[i].fn_lo,
				       !strcmp(ps->v[i].func, "-"));
	if (!strcmp(func, "-")) {
		if (make_at_address(&m, proc, modf))
			goto fail;
		free(m.have.v);
		return (int)m.made;
	}
	for (size_t i = mod_from; i < proc->mod_cnt && !m.err; i++) {
		struct pr_module *mod = proc->mods[i];
		if (mod->gone || runtime_mod(mod) || !pb__mod_match(modf, mod, mod == exe))
			continue;
		mod_found = true;
		m.mod = mod;
		m.exe = mod == exe;
		make_in_mod(&m, func, &found);
	}
	pr_proc_close_files(proc); /* (the functions' files: each opened once above) */
	if (m.err)
		goto fail;
	/* (no module of that name: it may be loaded later, with -Z) */
	if (!found && mod_found && !late && *func && !is_glob(func) && *modf && !is_glob(modf)) {
		m.err = udt__xasprintf("failed to lookup '%s' in module '%s'", func, modf);
		goto fail;
	}
	free(m.have.v);
	return (int)m.made;
fail:
	*ret_err = udt__xasprintf("invalid probe specifier %s: %s", desc, m.err);
	free(m.err);
	free(m.have.v);
	return -1;
}

int pb_probes_add_pid(struct pb_probes *ps, struct pr_proc *proc, const char *desc,
		      char **ret_err)
{
	return add_pid(ps, proc, desc, 0, false, ret_err);
}

int pb_probes_add_pid_late(struct pb_probes *ps, struct pr_proc *proc, const char *desc,
			   size_t mod_from, char **ret_err)
{
	return add_pid(ps, proc, desc, mod_from, true, ret_err);
}

bool pb_desc_pid_of(const char *desc, int pid)
{
	char field[4][512], want[24];

	snprintf(want, sizeof(want), "pid%d", pid);
	return pb__desc_fields(desc, field) && !strcmp(field[0], want);
}

bool pb__pid_match(const char *const f[4], const struct pb_probe *pr)
{
	uint64_t a, b;

	if (*f[0] && !gmatch(f[0], pr->prov))
		return false;
	if (!pb__mod_match(f[1], pr->module, pr->pid_exe))
		return false;
	const char *matched;
	if (!strcmp(pr->func, "-") ? *f[2] && !gmatch(f[2], "-")
	    : *f[2] && !pb__func_match(f[2], pr->fn_syms, pr->fn_nsyms, &matched))
		return false;
	if (!*f[3] || gmatch(f[3], pr->name))
		return true;
	/* an offset given otherwise than the probe's name says it ("01a", "1A") */
	return pr->pid_kind == PB_PID_OFFSET && !is_glob(f[3]) && hex_offset(f[3], &a) &&
	       hex_offset(pr->name, &b) && a == b;
}

void pb__pid_list_sites(const struct pb_probe *pr, FILE *out)
{
	struct pr_func_text ft;
	const char *why = NULL;
	bool text = !pr_func_text(pr->module, pr->fn_lo, pr->fn_hi, &ft, &why);

	fprintf(out, "\n\tProbe Sites (pid provider: %s, 0x%llx-0x%llx)\n", pr->module->name,
		(unsigned long long)pr->fn_lo, (unsigned long long)pr->fn_hi);
	if (!pr->pid_cnt)
		fprintf(out, "\t\tnone: %s\n", pr->pid_why ? pr->pid_why : "no place found");
	for (uint32_t i = 0; i < pr->pid_cnt; i++) {
		uint64_t a = pr->fn_lo + pr->pid_offs[i];
		struct udt_site site;
		size_t k = 0;
		fprintf(out, "\t\t0x%llx (+0x%x)\n", (unsigned long long)a, pr->pid_offs[i]);
		while (text && k < ft.cnt && ft.v[k].off < pr->pid_offs[i])
			k++;
		/* how it would be enabled alone (a process with shadow stacks traps more) */
		if (!text || k == ft.cnt || ft.v[k].off != pr->pid_offs[i])
			fprintf(out, "\t\t\tcannot be instrumented: %s\n",
				why ? why : "it is not an instruction of its function");
		else if (!pr_insn_plan(&ft, k, 0, UINT64_MAX, 0, pr->pid_kind == PB_PID_RETURN, false,
				       false, &site, &why))
			fprintf(out, "\t\t\tcannot be instrumented: %s\n", why);
		else if (site.mode == UDT_SITE_JUMP)
			fprintf(out, "\t\t\tenabled by a jump to a trampoline\n");
		else
			fprintf(out, "\t\t\tenabled by a trap: %s\n", why);
	}
	if (text)
		pr_func_text_free(&ft);
}

/* -- Their sites ----------------------------------------------------------------------------- */

void pb_site_left_out(const struct pb_probe *pr, uint64_t pc, const char *fmt, ...)
{
	char why[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s: %s:%s:%s:%s: site 0x%llx left out: %s\n", udt__progname, pr->prov,
		pr->mod, pr->func, pr->name, (unsigned long long)pc, why);
}

bool pb_probe_has_site(const struct pb_probe *pr, uint64_t addr)
{
	for (uint32_t s = 0; pr->notes && s < pr->note_cnt; s++)
		if (pr->notes[s].pc == addr)
			return true;
	for (uint32_t s = 0; pr->pid_kind && s < pr->pid_cnt; s++)
		if (pr->fn_lo + pr->pid_offs[s] == addr)
			return true;
	for (uint32_t s = 0; s < pr->part_cnt; s++)
		if (pr->part_sites[s].addr == addr)
			return true;
	return false;
}

void pb_site_status_say(const struct pb_probe *pr, const struct udt_site *s)
{
	bool insn = s->kind == UDT_SITE_INSN;

	if (s->status == UDT_SITE_PATCHED || s->status == UDT_SITE_JUMPED)
		return;
	pb_site_left_out(pr, s->addr, s->status == UDT_SITE_BUSY
			? "another tracer's breakpoint is on it"
		: s->status == UDT_SITE_NOT_NOP
			? insn ? "its instruction is not its object file's"
			       : "it is not the nop its note describes"
		: s->status == UDT_SITE_OVERLAP
			? "its bytes overlap another probe site's patched there"
			: "it could not be patched");
}

/* An instruction the pid probes fire at: its probes' keys, its function. */
struct isite {
	uint64_t addr;
	uint64_t key, key_off, key_ret, ret_off;
	uint64_t part;             /* its part in what the runtime follows (UDT_PART()) */
	bool ret;                  /* it is a way out of its function */
	bool jump_only;            /* a jump or nothing (pb_part_site's) */
	uint64_t fn_lo, fn_hi;     /* the function it is in */
	const struct pb_probe *pr; /* one of them (its module), for messages */
};

static int isite_cmp(const void *x, const void *y)
{
	const struct isite *a = x, *b = y;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	return a->fn_lo < b->fn_lo ? -1 : a->fn_lo > b->fn_lo;
}

/* The sites of pid probes prs[0..np), one for each instruction, sorted. */
static size_t isites(const struct pb_probe *const *prs, size_t np, struct isite **ret)
{
	struct isite *v = NULL;
	size_t n = 0, cap = 0;

	for (size_t i = 0; i < np; i++) {
		const struct pb_probe *pr = prs[i];
		if (!pr->pid_kind)
			continue;
		for (uint32_t s = 0; s < pr->part_cnt; s++) {
			const struct pb_part_site *l = &pr->part_sites[s];
			struct isite is = { .addr = l->addr, .part = l->part, .fn_lo = l->fn_lo,
					    .fn_hi = l->fn_hi, .pr = pr,
					    .ret = l->ret, .jump_only = l->jump_only };
			UDT__PUSH(v, n, cap, is);
		}
		for (uint32_t s = 0; s < pr->pid_cnt; s++) {
			struct isite is = { .addr = pr->fn_lo + pr->pid_offs[s], .pr = pr,
					    .fn_lo = pr->fn_lo, .fn_hi = pr->fn_hi };
			if (pr->pid_kind == PB_PID_ENTRY)
				is.key = pr->sem;
			else if (pr->pid_kind == PB_PID_OFFSET)
				is.key_off = pr->sem;
			else {
				is.key_ret = pr->sem;
				is.ret_off = pr->pid_offs[s];
				is.ret = true;
			}
			UDT__PUSH(v, n, cap, is);
		}
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), isite_cmp);
	/* one for each address: its probes' keys together (several ECBs of a probe: once) */
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		if (m && v[m - 1].addr == v[i].addr) {
			struct isite *d = &v[m - 1];
			d->key = d->key ? d->key : v[i].key;
			d->key_off = d->key_off ? d->key_off : v[i].key_off;
			d->part = d->part ? d->part : v[i].part;
			d->ret |= v[i].ret;
			d->jump_only |= v[i].jump_only;
			if (!d->key_ret) {
				d->key_ret = v[i].key_ret;
				d->ret_off = v[i].ret_off;
			}
			continue;
		}
		v[m++] = v[i];
	}
	*ret = v;
	return m;
}

void pb_pid_sites(const struct pb_probe *const *prs, size_t np, const uint64_t *notes,
		  size_t nnotes, bool shstk, bool traps, struct udt_site **v, size_t *cnt,
		  size_t *cap)
{
	struct isite *is;
	size_t n = isites(prs, np, &is);
	struct pr_func_text ft = { 0 };
	const struct isite *fn = NULL; /* the function ft holds: that of this site */
	bool have = false;
	size_t nk = 0;
	size_t owner = SIZE_MAX;   /* the jump (in v) later sites of this function may join */
	uint64_t owner_end = 0;

	for (size_t i = 0; i < n; i++) {
		const struct pb_probe *pr = is[i].pr;
		const char *why = NULL;
		struct udt_site site;

		while (nk < nnotes && notes[nk] <= is[i].addr)
			nk++;
		if (nk && notes[nk - 1] == is[i].addr) {
			pb_site_left_out(pr, is[i].addr, "it is a SystemTap probe site's nop: trace it by its "
				 "provider");
			continue;
		}
		if (*cnt == UDT_SITES_MAX) {
			pb_site_left_out(pr, is[i].addr, "a session enables at most %d sites", UDT_SITES_MAX);
			break;
		}
		if (!fn || fn->fn_lo != is[i].fn_lo || fn->pr->module != pr->module) {
			if (have)
				pr_func_text_free(&ft);
			have = true;
			fn = &is[i];
			owner = SIZE_MAX;
			if (pr_func_text(pr->module, is[i].fn_lo, is[i].fn_hi, &ft, &why))
				ft.cnt = 0;
		}
		size_t k = 0;
		while (k < ft.cnt && ft.lo + ft.v[k].off < is[i].addr)
			k++;
		if (k == ft.cnt || ft.lo + ft.v[k].off != is[i].addr) {
			pb_site_left_out(pr, is[i].addr, "%s", why ? why : "it is not an instruction of its "
				 "function");
			continue;
		}
		uint64_t next_note = nk < nnotes ? notes[nk] : UINT64_MAX;
		uint64_t prev = i ? is[i - 1].addr : 0;
		if (nk && notes[nk - 1] > prev)
			prev = notes[nk - 1];
		bool joined = owner != SIZE_MAX && is[i].addr < owner_end;
		/* its own plan: a trap's, if it joins a jump (the jump's, while that jump is there) */
		if (!pr_insn_plan(&ft, k, prev, next_note, 0, is[i].ret, shstk,
				  traps || joined, &site, &why)) {
			pb_site_left_out(pr, is[i].addr, "it cannot be instrumented: %s", why);
			continue;
		}
		site.key = is[i].key;
		site.key_off = is[i].key_off;
		site.key_ret = is[i].key_ret;
		site.ret_off = is[i].ret_off;
		site.part = is[i].part;
		/* a trap alone: the jump before it stretched to take it, if that is sound */
		struct udt_site wider;
		const char *wwhy;
		if (!joined && site.mode == UDT_SITE_TRAP && owner != SIZE_MAX && !traps) {
			struct udt_site *o = &(*v)[owner];
			size_t ok = 0;
			while (ok < ft.cnt && ft.lo + ft.v[ok].off < o->addr)
				ok++;
			if (pr_insn_plan(&ft, ok, 0, next_note, is[i].addr, false, shstk, false, &wider,
					 &wwhy) && wider.mode == UDT_SITE_JUMP) {
				wider.key = o->key;
				wider.key_off = o->key_off;
				wider.key_ret = o->key_ret;
				wider.ret_off = o->ret_off;
				wider.part = o->part;
				wider.join_mask = o->join_mask;
				*o = wider;
				owner_end = o->addr + o->len;
				joined = true;
			}
		}
		if (!joined && site.mode == UDT_SITE_TRAP && is[i].jump_only) {
			pb_site_left_out(pr, is[i].addr, "a trap there would kill the thread (it may run "
					 "with SIGTRAP blocked or at its default), and it cannot be a "
					 "jump: %s", traps ? "-x pidsites=trap" : why ? why : "no room");
			continue;
		}
		if (is[i].jump_only)
			site.flags |= UDT_SITE_F_NO_TRAP;
		if (joined) {
			struct udt_site *o = &(*v)[owner];
			site.mode = UDT_SITE_TRAP; /* (its own plan: a trap's, from pr_insn_plan()) */
			site.join_back = (uint8_t)(is[i].addr - o->addr);
			o->join_mask |= 1u << (is[i].addr - (o->addr - o->fire_off));
		}
		UDT__PUSH(*v, *cnt, *cap, site);
		if (!joined && site.mode == UDT_SITE_JUMP) {
			owner = *cnt - 1;
			owner_end = site.addr - site.fire_off + site.len;
		} else if (!joined) {
			owner = SIZE_MAX;
		}
	}
	if (have)
		pr_func_text_free(&ft);
	free(is);
}
