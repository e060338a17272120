/* SPDX-License-Identifier: MIT */
/*
 * The plockstat provider's probes (docs/plockstat.md): illumos's libc fires
 * them from its lock functions; glibc has no such probes (Debian's libc.so.6
 * carries no SystemTap notes), so they are made here, on demand as the pid
 * provider's are, from glibc's own pthread mutex and rwlock functions:
 *
 *	plockstat<PID>:libc.so.6:pthread_mutex_lock:mutex-acquire
 *
 * Each probe's sites are pid provider sites (pid.c plans them) with a part
 * in a lock operation (UDT_LOCK_SITE(): abi.h): the function's entry, and,
 * for a function that locks, each call in it of a function that waits (a
 * futex wait: the fast path failed), each pause (a spin loop), each way out;
 * a jump out to another function of the object (pthread_mutex_timedlock's to
 * __pthread_mutex_clocklock_common, the robust mutexes' path) takes these
 * from that function too, as if it were the same. The runtime follows a
 * thread through them (runtime/plockstat.c) and fires the probes they mean.
 * A function's probes share its sites; their keys are UDT_LOCK_KEY().
 */
#include "probes/probes.h"
#include "util/util.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#define BIT(p) (1u << (p))
#define MUTEX_PROBES (BIT(UDT_LK_MUTEX_ACQUIRE) | BIT(UDT_LK_MUTEX_BLOCK) |                   \
		      BIT(UDT_LK_MUTEX_BLOCKED) | BIT(UDT_LK_MUTEX_SPIN) | BIT(UDT_LK_MUTEX_SPUN) |  \
		      BIT(UDT_LK_MUTEX_ERROR))
#define MUTEX_TRY (BIT(UDT_LK_MUTEX_ACQUIRE) | BIT(UDT_LK_MUTEX_ERROR))
#define RW_PROBES (BIT(UDT_LK_RW_ACQUIRE) | BIT(UDT_LK_RW_BLOCK) | BIT(UDT_LK_RW_BLOCKED) |      \
		   BIT(UDT_LK_RW_ERROR))
#define RW_TRY (BIT(UDT_LK_RW_ACQUIRE) | BIT(UDT_LK_RW_ERROR))

/* glibc's lock functions, each's part, and the probes it has. */
static const struct lockfn {
	const char *name;
	uint8_t role;              /* its entry's: enum udt_lock_role */
	uint32_t probes;           /* BIT(enum udt_lock_probe) */
} lockfns[] = {
	{ "pthread_mutex_lock", UDT_LR_MUTEX_LOCK, MUTEX_PROBES },
	{ "pthread_mutex_timedlock", UDT_LR_MUTEX_LOCK, MUTEX_PROBES },
	{ "pthread_mutex_clocklock", UDT_LR_MUTEX_LOCK, MUTEX_PROBES },
	{ "pthread_mutex_trylock", UDT_LR_MUTEX_TRY, MUTEX_TRY },
	{ "pthread_mutex_unlock", UDT_LR_MUTEX_UNLOCK, BIT(UDT_LK_MUTEX_RELEASE) },
	{ "pthread_rwlock_rdlock", UDT_LR_RD_LOCK, RW_PROBES },
	{ "pthread_rwlock_timedrdlock", UDT_LR_RD_LOCK, RW_PROBES },
	{ "pthread_rwlock_clockrdlock", UDT_LR_RD_LOCK, RW_PROBES },
	{ "pthread_rwlock_tryrdlock", UDT_LR_RD_TRY, RW_TRY },
	{ "pthread_rwlock_wrlock", UDT_LR_WR_LOCK, RW_PROBES },
	{ "pthread_rwlock_timedwrlock", UDT_LR_WR_LOCK, RW_PROBES },
	{ "pthread_rwlock_clockwrlock", UDT_LR_WR_LOCK, RW_PROBES },
	{ "pthread_rwlock_trywrlock", UDT_LR_WR_TRY, RW_TRY },
	{ "pthread_rwlock_unlock", UDT_LR_RW_UNLOCK, BIT(UDT_LK_RW_RELEASE) },
};

static const char *const probe_names[UDT_LK_PROBES] = {
	[UDT_LK_MUTEX_ACQUIRE] = "mutex-acquire", [UDT_LK_MUTEX_RELEASE] = "mutex-release",
	[UDT_LK_MUTEX_BLOCK] = "mutex-block",     [UDT_LK_MUTEX_BLOCKED] = "mutex-blocked",
	[UDT_LK_MUTEX_SPIN] = "mutex-spin",       [UDT_LK_MUTEX_SPUN] = "mutex-spun",
	[UDT_LK_MUTEX_ERROR] = "mutex-error",     [UDT_LK_RW_ACQUIRE] = "rw-acquire",
	[UDT_LK_RW_RELEASE] = "rw-release",       [UDT_LK_RW_BLOCK] = "rw-block",
	[UDT_LK_RW_BLOCKED] = "rw-blocked",       [UDT_LK_RW_ERROR] = "rw-error",
};

static const char *const role_names[] = {
	[UDT_LR_MUTEX_LOCK] = "the lock begins",   [UDT_LR_MUTEX_TRY] = "the trylock begins",
	[UDT_LR_RD_LOCK] = "the read lock begins", [UDT_LR_RD_TRY] = "the read trylock begins",
	[UDT_LR_WR_LOCK] = "the write lock begins", [UDT_LR_WR_TRY] = "the write trylock begins",
	[UDT_LR_WAIT] = "a wait (block)",          [UDT_LR_SPIN] = "a spin",
	[UDT_LR_DONE] = "a way out (acquire, error)", [UDT_LR_MUTEX_UNLOCK] = "release",
	[UDT_LR_RW_UNLOCK] = "release",
};

/* Does a function of this name wait for a lock (glibc's futex waits, under any alias)? */
static bool waits(const char *name)
{
	return strstr(name, "lock_wait") || strstr(name, "futex_abstimed_wait") ||
	       strstr(name, "futex_lock_pi") || strstr(name, "futex_wait");
}

/* The function of mod that starts at addr (a sized symbol), or NULL. */
static const struct pr_sym *func_at(struct pr_module *mod, uint64_t addr)
{
	const struct pr_sym *s;

	return !pr_module_symbolize(mod, addr, &s) && s->func && s->addr == addr && s->size ? s
											    : NULL;
}

struct sites {
	struct pb_lock_site *v;
	size_t cnt, cap;
	uint64_t walked[4];        /* the functions walked: the lock function, those it jumps to */
	size_t nwalked;
	const char *why;           /* the first reason a function could not be read */
};

static void put(struct sites *s, uint64_t addr, uint8_t role, uint64_t fn, uint64_t lo,
		uint64_t hi)
{
	struct pb_lock_site ls = { .addr = addr, .lock = UDT_LOCK_SITE(role, fn), .fn_lo = lo,
				   .fn_hi = hi };
	UDT__PUSH(s->v, s->cnt, s->cap, ls);
}

/* The waits, spins and ways out of function [lo, hi) of mod, and of those it jumps on to. */
static void walk(struct sites *s, struct pr_module *mod, uint64_t lo, uint64_t hi)
{
	struct pr_func_text ft;
	const char *why;

	for (size_t i = 0; i < s->nwalked; i++)
		if (s->walked[i] == lo)
			return;
	if (s->nwalked == sizeof(s->walked) / sizeof(*s->walked))
		return;
	s->walked[s->nwalked++] = lo;
	if (pr_func_text(mod, lo, hi, &ft, &why)) {
		s->why = s->why ? s->why : why;
		pr_func_text_free(&ft);
		return;
	}
	/* glibc's lock functions switch on the mutex's type by a jump table (in .rodata: its
	   text decodes as it runs), so where the decode met nothing odd each ret and jump out is
	   a way out, not only those illumos's rule for any function keeps (pr_func_returns()) */
	bool sure = !ft.partial && !ft.odd_target;
	for (size_t i = 0; i < ft.cnt; i++) {
		const struct pr_insn *in = &ft.v[i];
		const struct pr_sym *to = in->dest ? func_at(mod, in->dest) : NULL;
		uint64_t at = lo + in->off;
		bool out = sure ? (in->flags & (PR_INSN_RET | PR_INSN_OUT)) != 0
				: pr_func_returns(&ft, i);

		if (in->flags & PR_INSN_PAUSE)
			put(s, at, UDT_LR_SPIN, 0, lo, hi);
		else if ((in->flags & PR_INSN_CALL) && to && waits(to->name))
			put(s, at, UDT_LR_WAIT, 0, lo, hi);
		else if (out && (in->flags & PR_INSN_OUT) && to && !waits(to->name))
			walk(s, mod, to->addr, to->addr + to->size); /* (it goes on there) */
		else if (out)
			put(s, at, UDT_LR_DONE, 0, lo, hi);
	}
	pr_func_text_free(&ft);
}

static int site_cmp(const void *x, const void *y)
{
	const struct pb_lock_site *a = x, *b = y;

	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

/* The sites of lock function fn (lf) of mod, sorted by address. */
static struct sites lock_sites(struct pr_module *mod, const struct pr_func *fn,
			       const struct lockfn *lf)
{
	struct sites s = { 0 };

	put(&s, fn->addr, lf->role, fn->addr, fn->addr, fn->addr + fn->size);
	if (lf->role != UDT_LR_MUTEX_UNLOCK && lf->role != UDT_LR_RW_UNLOCK)
		walk(&s, mod, fn->addr, fn->addr + fn->size);
	if (s.cnt > 1)
		qsort(s.v, s.cnt, sizeof(*s.v), site_cmp);
	return s;
}

/* Which of lockfns is function fn (by any of its names), or NULL. */
static const struct lockfn *lockfn_of(const struct pr_func *fn)
{
	for (size_t i = 0; i < fn->nsyms; i++) {
		const char *n = fn->syms[i].name;
		size_t len = strcspn(n, "@");
		for (size_t k = 0; k < sizeof(lockfns) / sizeof(*lockfns); k++)
			if (strlen(lockfns[k].name) == len && !strncmp(lockfns[k].name, n, len))
				return &lockfns[k];
	}
	return NULL;
}

/* Is a probe of key key in ps already? */
static bool have(const struct pb_probes *ps, uint64_t key)
{
	for (size_t i = 0; i < ps->cnt; i++)
		if (ps->v[i].pid_kind == PB_PID_LOCK && ps->v[i].sem == key)
			return true;
	return false;
}

/* The probes of description fields f (provider prov) in module mod. */
static size_t make_in_mod(struct pb_probes *ps, struct pr_module *mod, bool exe,
			  const char f[4][512])
{
	struct pr_func *fns;
	size_t n = pr_module_funcs(mod, &fns), made = 0;
	const char *name = f[3][0] ? f[3] : "*";

	for (size_t i = 0; i < n; i++) {
		const struct lockfn *lf = lockfn_of(&fns[i]);
		const char *matched;
		struct sites s = { 0 };

		if (!lf || !pb__func_match(f[2], fns[i].syms, fns[i].nsyms, &matched))
			continue;
		for (uint32_t p = 1; p < UDT_LK_PROBES; p++) {
			uint64_t key = UDT_LOCK_KEY(p, fns[i].addr);
			if (!(lf->probes & BIT(p)) || fnmatch(name, probe_names[p], 0))
				continue;
			made++;
			if (have(ps, key))
				continue;
			if (!s.v)
				s = lock_sites(mod, &fns[i], lf);
			struct pb_probe pr = {
				.id = ps->id_base + (uint32_t)ps->cnt + 1,
				.prov = udt__xstrdup(f[0]),
				.mod = mod->name,
				.func = fns[i].name,
				.name = udt__xstrdup(probe_names[p]),
				.module = mod,
				.sem = key,
				.pid_kind = PB_PID_LOCK,
				.pid_exe = exe,
				.fn_lo = fns[i].addr,
				.fn_hi = fns[i].addr + fns[i].size,
				.fn_syms = fns[i].syms,
				.fn_nsyms = fns[i].nsyms,
				.lk_sites = udt__xcalloc(s.cnt ? s.cnt : 1, sizeof(*s.v)),
				.lk_cnt = (uint32_t)s.cnt,
				.pid_why = s.why,
			};
			if (s.cnt)
				memcpy(pr.lk_sites, s.v, s.cnt * sizeof(*s.v));
			size_t cap = ps->cnt;
			UDT__PUSH(ps->v, ps->cnt, cap, pr);
		}
		free(s.v);
	}
	free(fns);
	return made;
}

int pb__plockstat_add(struct pb_probes *ps, struct pr_proc *proc, const char f[4][512],
		      const char *desc, size_t mod_from, char **ret_err)
{
	uint64_t pid = 0;
	size_t made = 0;

	for (const char *c = f[0] + 9; *c && pid <= 0xffffffffull; c++)
		pid = pid * 10 + (uint64_t)(*c - '0');
	if (!pid || pid > 0x7fffffff || !proc || (pid_t)pid != proc->pid) {
		*ret_err = udt__xasprintf("invalid probe specifier %s: the plockstat provider makes "
					  "its probes in the process of -p or -c, and '%s' is not "
					  "its", desc, f[0]);
		return -1;
	}
	struct pr_module *exe = pr_proc_exe(proc);
	for (size_t i = mod_from; i < proc->mod_cnt; i++) {
		struct pr_module *mod = proc->mods[i];
		if (!mod->gone && strncmp(mod->name, "libudtrace", 10) &&
		    pb__mod_match(f[1], mod, mod == exe))
			made += make_in_mod(ps, mod, mod == exe, f);
	}
	pr_proc_close_files(proc);
	return (int)made;
}

void pb__lock_list_sites(const struct pb_probe *pr, FILE *out)
{
	fprintf(out, "\n\tProbe Sites (plockstat provider: %s, 0x%llx-0x%llx)\n", pr->module->name,
		(unsigned long long)pr->fn_lo, (unsigned long long)pr->fn_hi);
	if (pr->pid_why)
		fprintf(out, "\t\tnot all: %s\n", pr->pid_why);
	for (uint32_t i = 0; i < pr->lk_cnt; i++) {
		const struct pb_lock_site *s = &pr->lk_sites[i];
		const struct pr_sym *in;
		uint32_t role = UDT_LOCK_SITE_ROLE(s->lock);
		bool named = !pr_module_symbolize(pr->module, s->fn_lo, &in);

		fprintf(out, "\t\t0x%llx (%s+0x%llx): %s\n", (unsigned long long)s->addr,
			named ? in->name : "?", (unsigned long long)(s->addr - s->fn_lo),
			role < sizeof(role_names) / sizeof(*role_names) && role_names[role]
				? role_names[role] : "?");
	}
}
