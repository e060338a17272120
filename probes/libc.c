/* SPDX-License-Identifier: MIT */
/*
 * Providers made of the C library's own functions, on demand as the pid
 * provider's probes are, with its machinery (pid.c plans their sites):
 *
 *	plockstat<PID>:libc.so.6:pthread_mutex_lock:mutex-acquire  docs/plockstat.md
 *	proc:libc.so.6:_Fork:create                                 docs/proc.md
 *
 * illumos's libc and kernel fire these; glibc has no such probes (Debian's
 * libc.so.6 carries no SystemTap notes), so each probe's sites are pid
 * provider sites with a part (UDT_PART(): abi.h) in what the runtime
 * follows (runtime/plockstat.c, runtime/proc.c): a function's entry, its
 * ways out, a call it makes. A lock function's are found by a walk: each
 * call in it of a function that waits (a futex wait: the fast path failed),
 * each pause (a spin loop), each way out; a jump out to another function of
 * the object (pthread_mutex_timedlock's to __pthread_mutex_clocklock_common,
 * the robust mutexes' path) takes these from that function too, as if it
 * were the same. A function's probes share its sites; their keys are
 * UDT_LOCK_KEY() and UDT_PROC_KEY(), of the probe and the function.
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

/* A function of the C library a provider's probes are made of, and the parts of its sites. */
struct fnspec {
	const char *name;
	uint8_t entry;             /* its entry's part (enum udt_part_role), 0 none */
	uint8_t out;               /* its ways out's */
	bool walk;                 /* a lock function: its waits, spins and ways out (walk()) */
	const char *callee;        /* the calls of this function in it have part call */
	uint8_t call;
	uint8_t icall;             /* its indirect calls' part */
	uint8_t after_sys;         /* the part of the instruction after each system call in it */
	bool no_trap;              /* its sites a jump or nothing (UDT_SITE_F_NO_TRAP) */
	uint32_t probes;           /* BIT(its provider's probe numbers) */
};

#define L(name, role, probes) { name, role, 0, true, NULL, 0, 0, 0, false, probes }
static const struct fnspec lock_fns[] = {
	L("pthread_mutex_lock", UDT_LR_MUTEX_LOCK, MUTEX_PROBES),
	L("pthread_mutex_timedlock", UDT_LR_MUTEX_LOCK, MUTEX_PROBES),
	L("pthread_mutex_clocklock", UDT_LR_MUTEX_LOCK, MUTEX_PROBES),
	L("pthread_mutex_trylock", UDT_LR_MUTEX_TRY, MUTEX_TRY),
	{ "pthread_mutex_unlock", UDT_LR_MUTEX_UNLOCK, 0, false, NULL, 0, 0, 0, false,
	  BIT(UDT_LK_MUTEX_RELEASE) },
	L("pthread_rwlock_rdlock", UDT_LR_RD_LOCK, RW_PROBES),
	L("pthread_rwlock_timedrdlock", UDT_LR_RD_LOCK, RW_PROBES),
	L("pthread_rwlock_clockrdlock", UDT_LR_RD_LOCK, RW_PROBES),
	L("pthread_rwlock_tryrdlock", UDT_LR_RD_TRY, RW_TRY),
	L("pthread_rwlock_wrlock", UDT_LR_WR_LOCK, RW_PROBES),
	L("pthread_rwlock_timedwrlock", UDT_LR_WR_LOCK, RW_PROBES),
	L("pthread_rwlock_clockwrlock", UDT_LR_WR_LOCK, RW_PROBES),
	L("pthread_rwlock_trywrlock", UDT_LR_WR_TRY, RW_TRY),
	{ "pthread_rwlock_unlock", UDT_LR_RW_UNLOCK, 0, false, NULL, 0, 0, 0, false,
	  BIT(UDT_LK_RW_RELEASE) },
};
#undef L

/*
 * A posix_spawn() child runs execve and _exit with its handlers reset to their
 * defaults (glibc's __spawni_child), a sigwait() thread may block every
 * signal, and a new thread enters start_thread with every signal blocked:
 * where a trap would kill the thread, a site is a jump or nothing, and
 * lwp-start is just before start_thread's call of the start routine (an
 * indirect call, after the mask is restored).
 */
#define P(name, entry, out, probes) { name, entry, out, false, NULL, 0, 0, 0, false, probes }
#define PJ(name, entry, out, probes) { name, entry, out, false, NULL, 0, 0, 0, true, probes }
static const struct fnspec proc_fns[] = {
	P("_Fork", 0, UDT_PR_FORK, BIT(UDT_PC_CREATE) | BIT(UDT_PC_START)),
	/* (system() and popen() spawn: a child that shares the memory until it execs) */
	P("posix_spawn", UDT_PR_SPAWN, UDT_PR_SPAWN_DONE, BIT(UDT_PC_CREATE)),
	P("posix_spawnp", UDT_PR_SPAWN, UDT_PR_SPAWN_DONE, BIT(UDT_PC_CREATE)),
	P("vfork", 0, UDT_PR_VFORK, BIT(UDT_PC_CREATE)),
	PJ("execve", UDT_PR_EXEC, UDT_PR_EXEC_FAIL, BIT(UDT_PC_EXEC) | BIT(UDT_PC_EXEC_FAILURE)),
	PJ("execveat", UDT_PR_EXECAT, UDT_PR_EXEC_FAIL, BIT(UDT_PC_EXEC) | BIT(UDT_PC_EXEC_FAILURE)),
	PJ("_exit", UDT_PR_EXIT, 0, BIT(UDT_PC_EXIT)),
	P("pthread_create", UDT_PR_THREAD, UDT_PR_THREAD_DONE, BIT(UDT_PC_LWP_CREATE)),
	/* (the new thread's tid as clone3 returns it: it may have exited, its tid cleared, by
	   the time pthread_create returns; signals are blocked there: a jump or nothing) */
	{ "clone3", 0, 0, false, NULL, 0, 0, UDT_PR_CLONED, true, BIT(UDT_PC_LWP_CREATE) },
	/* (a static function: named by the C library's debug symbols, libc6-dbg) */
	{ "start_thread", 0, 0, false, "__call_tls_dtors", UDT_PR_LWP_EXIT, UDT_PR_LWP_START, 0,
	  false, BIT(UDT_PC_LWP_START) | BIT(UDT_PC_LWP_EXIT) },
	P("kill", UDT_PR_KILL, 0, BIT(UDT_PC_SIGNAL_SEND)),
	P("tgkill", UDT_PR_TGKILL, 0, BIT(UDT_PC_SIGNAL_SEND)),
	P("pthread_kill", UDT_PR_PTHREAD_KILL, 0, BIT(UDT_PC_SIGNAL_SEND)),
	P("sigqueue", UDT_PR_SIGQUEUE, 0, BIT(UDT_PC_SIGNAL_SEND)),
	PJ("sigtimedwait", 0, UDT_PR_SIGWAITED, BIT(UDT_PC_SIGNAL_CLEAR)),
};
#undef P
#undef PJ

static const char *const lock_names[UDT_LK_PROBES] = {
	[UDT_LK_MUTEX_ACQUIRE] = "mutex-acquire", [UDT_LK_MUTEX_RELEASE] = "mutex-release",
	[UDT_LK_MUTEX_BLOCK] = "mutex-block",     [UDT_LK_MUTEX_BLOCKED] = "mutex-blocked",
	[UDT_LK_MUTEX_SPIN] = "mutex-spin",       [UDT_LK_MUTEX_SPUN] = "mutex-spun",
	[UDT_LK_MUTEX_ERROR] = "mutex-error",     [UDT_LK_RW_ACQUIRE] = "rw-acquire",
	[UDT_LK_RW_RELEASE] = "rw-release",       [UDT_LK_RW_BLOCK] = "rw-block",
	[UDT_LK_RW_BLOCKED] = "rw-blocked",       [UDT_LK_RW_ERROR] = "rw-error",
};

static const char *const proc_names[UDT_PC_PROBES] = {
	[UDT_PC_CREATE] = "create",         [UDT_PC_START] = "start",
	[UDT_PC_EXEC] = "exec",             [UDT_PC_EXEC_FAILURE] = "exec-failure",
	[UDT_PC_EXIT] = "exit",             [UDT_PC_LWP_CREATE] = "lwp-create",
	[UDT_PC_LWP_START] = "lwp-start",   [UDT_PC_LWP_EXIT] = "lwp-exit",
	[UDT_PC_SIGNAL_SEND] = "signal-send", [UDT_PC_SIGNAL_CLEAR] = "signal-clear",
};

/* The proc probes' arguments, as DTrace's (args[]: the types procfs.d declares) */
static const char *const proc_args[UDT_PC_PROBES][3] = {
	[UDT_PC_CREATE] = { "psinfo_t *" },
	[UDT_PC_EXEC] = { "string" },
	[UDT_PC_EXEC_FAILURE] = { "int" },
	[UDT_PC_EXIT] = { "int" },
	[UDT_PC_LWP_CREATE] = { "lwpsinfo_t *", "psinfo_t *" },
	[UDT_PC_SIGNAL_SEND] = { "lwpsinfo_t *", "psinfo_t *", "int" },
	[UDT_PC_SIGNAL_CLEAR] = { "int" }, /* (DTrace's k_siginfo_t * is the kernel's) */
};

/* A provider of them: its name, its functions, its probes' names and their keys. */
static const struct libc_prov {
	const char *name;
	bool pid;                  /* named with the process's ID (plockstat1234) */
	const struct fnspec *fns;
	size_t nfns;
	const char *const *names;
	uint32_t nprobes;
	uint64_t kind;             /* its keys' top bits (UDT_LOCK_KEY, UDT_PROC_KEY) */
} provs[] = {
	{ "plockstat", true, lock_fns, sizeof(lock_fns) / sizeof(*lock_fns), lock_names,
	  UDT_LK_PROBES, UDT_LOCK_KEY(0, 0) },
	{ "proc", false, proc_fns, sizeof(proc_fns) / sizeof(*proc_fns), proc_names,
	  UDT_PC_PROBES, UDT_PROC_KEY(0, 0) },
};

static const char *const role_names[] = {
	[UDT_LR_MUTEX_LOCK] = "the lock begins",   [UDT_LR_MUTEX_TRY] = "the trylock begins",
	[UDT_LR_RD_LOCK] = "the read lock begins", [UDT_LR_RD_TRY] = "the read trylock begins",
	[UDT_LR_WR_LOCK] = "the write lock begins", [UDT_LR_WR_TRY] = "the write trylock begins",
	[UDT_LR_WAIT] = "a wait (block)",          [UDT_LR_SPIN] = "a spin",
	[UDT_LR_DONE] = "a way out (acquire, error)", [UDT_LR_MUTEX_UNLOCK] = "release",
	[UDT_LR_RW_UNLOCK] = "release",
	[UDT_PR_FORK] = "a way out (create in the parent, start in the child)",
	[UDT_PR_EXEC] = "exec", [UDT_PR_EXECAT] = "exec",
	[UDT_PR_EXEC_FAIL] = "a way out (exec-failure)", [UDT_PR_EXIT] = "exit",
	[UDT_PR_THREAD] = "a thread is asked for",
	[UDT_PR_THREAD_DONE] = "a way out (lwp-create)",
	[UDT_PR_LWP_START] = "lwp-start (before the start routine's call)",
	[UDT_PR_LWP_EXIT] = "lwp-exit",
	[UDT_PR_KILL] = "signal-send", [UDT_PR_TGKILL] = "signal-send",
	[UDT_PR_PTHREAD_KILL] = "signal-send", [UDT_PR_SIGQUEUE] = "signal-send",
	[UDT_PR_SIGWAITED] = "a way out (signal-clear)",
	[UDT_PR_SPAWN] = "a child is asked for", [UDT_PR_SPAWN_DONE] = "a way out (create)",
	[UDT_PR_VFORK] = "a way out (create in the parent)",
	[UDT_PR_CLONED] = "after the system call (the new thread's tid, for lwp-create)",
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

/* Is one of the symbols syms (nsyms; the callee's first) named name, without its version? */
static bool fn_named(const struct pr_sym *syms, size_t nsyms, const char *name)
{
	for (size_t i = 0; i < nsyms; i++) {
		const char *n = syms[i].name;
		size_t len = strcspn(n, "@");
		if (strlen(name) == len && !strncmp(name, n, len))
			return true;
	}
	return false;
}

/* The symbols at sym's address from sym on (its aliases: mod's are sorted by address). */
static size_t aliases(const struct pr_module *mod, const struct pr_sym *sym)
{
	size_t n = 0;

	while (sym + n < mod->syms + mod->sym_cnt && sym[n].addr == sym->addr)
		n++;
	return n;
}

struct sites {
	struct pb_part_site *v;
	size_t cnt, cap;
	uint64_t walked[4];        /* the functions walked: the lock function, those it jumps to */
	size_t nwalked;
	const char *why;           /* the first reason a function could not be read */
};

/* A site of part (role, fn) at addr of function [lo, hi); out: a way out of it. */
static void put(struct sites *s, uint64_t addr, uint8_t role, uint64_t fn, uint64_t lo,
		uint64_t hi, bool out)
{
	struct pb_part_site ls = { .addr = addr, .part = UDT_PART(role, fn), .fn_lo = lo,
				   .fn_hi = hi, .ret = out };
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
			put(s, at, UDT_LR_SPIN, 0, lo, hi, false);
		else if ((in->flags & PR_INSN_CALL) && to && waits(to->name))
			put(s, at, UDT_LR_WAIT, 0, lo, hi, false);
		else if (out && (in->flags & PR_INSN_OUT) && to && !waits(to->name))
			walk(s, mod, to->addr, to->addr + to->size); /* (it goes on there) */
		else if (out)
			put(s, at, UDT_LR_DONE, 0, lo, hi, true);
	}
	pr_func_text_free(&ft);
}

static int site_cmp(const void *x, const void *y)
{
	const struct pb_part_site *a = x, *b = y;

	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

/* The sites of function fn (its spec fs) of mod, sorted by address. */
static struct sites fn_sites(struct pr_module *mod, const struct pr_func *fn,
			     const struct fnspec *fs)
{
	struct sites s = { 0 };
	uint64_t lo = fn->addr, hi = fn->addr + fn->size;

	if (fs->entry)
		put(&s, lo, fs->entry, lo, lo, hi, false);
	if (fs->walk) {
		walk(&s, mod, lo, hi);
	} else if (fs->out || fs->callee || fs->icall || fs->after_sys) {
		struct pr_func_text ft;
		const char *why;
		if (pr_func_text(mod, lo, hi, &ft, &why)) {
			s.why = why;
		} else {
			for (size_t i = 0; i < ft.cnt; i++) {
				const struct pr_insn *in = &ft.v[i];
				const struct pr_sym *to = in->dest ? func_at(mod, in->dest) : NULL;
				if (fs->out && pr_func_returns(&ft, i))
					put(&s, lo + in->off, fs->out, lo, lo, hi, true);
				else if (fs->callee && (in->flags & PR_INSN_CALL) && to &&
					 fn_named(to, aliases(mod, to), fs->callee))
					put(&s, lo + in->off, fs->call, lo, lo, hi, false);
				else if (fs->after_sys && i && (ft.v[i - 1].flags & PR_INSN_SYSCALL))
					put(&s, lo + in->off, fs->after_sys, lo, lo, hi, false);
				else if (fs->icall && (in->flags & PR_INSN_ICALL) && i &&
					 !(ft.v[i - 1].flags & (PR_INSN_END | PR_INSN_CALL)))
					/* (an indirect call is no site: the instruction before it) */
					put(&s, lo + ft.v[i - 1].off, fs->icall, lo, lo, hi, false);
			}
		}
		pr_func_text_free(&ft);
	}
	for (size_t i = 0; i < s.cnt; i++)
		s.v[i].jump_only = fs->no_trap;
	if (s.cnt > 1)
		qsort(s.v, s.cnt, sizeof(*s.v), site_cmp);
	return s;
}

/* Which of pv's functions is fn (by any of its names), or NULL. */
static const struct fnspec *spec_of(const struct libc_prov *pv, const struct pr_func *fn)
{
	for (size_t k = 0; k < pv->nfns; k++)
		if (fn_named(fn->syms, fn->nsyms, pv->fns[k].name))
			return &pv->fns[k];
	return NULL;
}

/* Is a probe of key key in ps already? */
static bool have(const struct pb_probes *ps, uint64_t key)
{
	for (size_t i = 0; i < ps->cnt; i++)
		if (ps->v[i].pid_kind == PB_PID_PART && ps->v[i].sem == key)
			return true;
	return false;
}

/* A proc probe's arguments' types (proc_args), for args[] */
static struct dl_probe *proc_dprobe(struct dl_program *types, uint32_t p)
{
	struct dl_probe *d = udt__xcalloc(1, sizeof(*d));
	size_t n = 0;

	while (n < 3 && proc_args[p][n])
		n++;
	d->name = d->dname = proc_names[p];
	d->narg_cnt = d->xarg_cnt = n;
	d->nargs = udt__xcalloc(n + 1, sizeof(*d->nargs));
	d->xargs = d->nargs;
	d->mapping = udt__xcalloc(n + 1, 1);
	for (size_t i = 0; i < n; i++) {
		const char *c = proc_args[p][i];
		d->nargs[i].ctype = c;
		/* a pointer's type is parsed where the clause is (compile.c: procfs.d's) */
		d->nargs[i].type = (struct dl_qtype){
			strchr(c, '*') ? dl_type_ptr(types, (struct dl_qtype){
				dl_lookup_typedef(types, "void"), 0 })
				       : dl_lookup_typedef(types, c), 0 };
		d->mapping[i] = (uint8_t)i;
	}
	return d;
}

/* The probes of description fields f of provider pv in module mod. */
static size_t make_in_mod(struct pb_probes *ps, const struct libc_prov *pv, struct pr_module *mod,
			  bool exe, const char f[4][512])
{
	struct pr_func *fns;
	size_t n = pr_module_funcs(mod, &fns), made = 0;
	const char *name = f[3][0] ? f[3] : "*";

	for (size_t i = 0; i < n; i++) {
		const struct fnspec *fs = spec_of(pv, &fns[i]);
		const char *matched;
		struct sites s = { 0 };

		if (!fs || !pb__func_match(f[2], fns[i].syms, fns[i].nsyms, &matched))
			continue;
		for (uint32_t p = 1; p < pv->nprobes; p++) {
			uint64_t key = pv->kind | (uint64_t)p << 52 | fns[i].addr;
			if (!(fs->probes & BIT(p)) || fnmatch(name, pv->names[p], 0))
				continue;
			made++;
			if (have(ps, key))
				continue;
			if (!s.v)
				s = fn_sites(mod, &fns[i], fs);
			struct pb_probe pr = {
				.id = ps->id_base + (uint32_t)ps->cnt + 1,
				.prov = udt__xstrdup(f[0]),
				.mod = mod->name,
				.func = fns[i].name,
				.name = udt__xstrdup(pv->names[p]),
				.module = mod,
				.sem = key,
				.pid_kind = PB_PID_PART,
				.pid_exe = exe,
				.fn_lo = fns[i].addr,
				.fn_hi = fns[i].addr + fns[i].size,
				.fn_syms = fns[i].syms,
				.fn_nsyms = fns[i].nsyms,
				.part_sites = udt__xcalloc(s.cnt ? s.cnt : 1, sizeof(*s.v)),
				.part_cnt = (uint32_t)s.cnt,
				.pid_why = s.why,
				.dprobe = pv->names == proc_names && ps->types ? proc_dprobe(ps->types, p)
									       : NULL,
			};
			if (s.cnt)
				memcpy(pr.part_sites, s.v, s.cnt * sizeof(*s.v));
			size_t cap = ps->cnt;
			UDT__PUSH(ps->v, ps->cnt, cap, pr);
		}
		free(s.v);
	}
	free(fns);
	return made;
}

const char *pb__libc_provider(const char *prov)
{
	for (size_t k = 0; k < sizeof(provs) / sizeof(*provs); k++) {
		size_t len = strlen(provs[k].name);
		if (!strncmp(prov, provs[k].name, len) &&
		    (provs[k].pid ? prov[len] && strspn(prov + len, "0123456789") == strlen(prov + len)
				  : !prov[len]))
			return provs[k].name;
	}
	return NULL;
}

int pb__libc_add(struct pb_probes *ps, struct pr_proc *proc, const char f[4][512],
		 const char *desc, size_t mod_from, char **ret_err)
{
	const struct libc_prov *pv = NULL;
	size_t made = 0;

	for (size_t k = 0; k < sizeof(provs) / sizeof(*provs); k++)
		if (pb__libc_provider(f[0]) == provs[k].name)
			pv = &provs[k];
	if (!pv)
		return 0;
	if (pv->pid) {
		uint64_t pid = 0;
		for (const char *c = f[0] + strlen(pv->name); *c && pid <= 0xffffffffull; c++)
			pid = pid * 10 + (uint64_t)(*c - '0');
		if (!pid || pid > 0x7fffffff || !proc || (pid_t)pid != proc->pid) {
			*ret_err = udt__xasprintf("invalid probe specifier %s: the %s provider makes "
						  "its probes in the process of -p or -c, and '%s' is "
						  "not its", desc, pv->name, f[0]);
			return -1;
		}
	} else if (!proc) {
		*ret_err = udt__xasprintf("invalid probe specifier %s: the %s provider of udtrace "
					  "makes its probes in the process of -p or -c: use one "
					  "(docs/proc.md)", desc, pv->name);
		return -1;
	}
	struct pr_module *exe = pr_proc_exe(proc);
	for (size_t i = mod_from; i < proc->mod_cnt; i++) {
		struct pr_module *mod = proc->mods[i];
		/* (the C library's: ld.so's own _exit and the like are not the program's) */
		if (!mod->gone && (!strncmp(mod->name, "libc.so", 7) ||
				   !strncmp(mod->name, "libpthread.so", 13)) &&
		    pb__mod_match(f[1], mod, mod == exe))
			made += make_in_mod(ps, pv, mod, mod == exe, f);
	}
	pr_proc_close_files(proc);
	return (int)made;
}

void pb__part_list_sites(const struct pb_probe *pr, FILE *out)
{
	fprintf(out, "\n\tProbe Sites (%s provider: %s, 0x%llx-0x%llx)\n",
		pb__libc_provider(pr->prov) ? pb__libc_provider(pr->prov) : pr->prov,
		pr->module->name, (unsigned long long)pr->fn_lo, (unsigned long long)pr->fn_hi);
	if (pr->pid_why)
		fprintf(out, "\t\tnot all: %s\n", pr->pid_why);
	if (!pr->part_cnt)
		fprintf(out, "\t\tnone found\n");
	for (uint32_t i = 0; i < pr->part_cnt; i++) {
		const struct pb_part_site *s = &pr->part_sites[i];
		const struct pr_sym *in;
		uint32_t role = UDT_PART_ROLE(s->part);
		bool nm = !pr_module_symbolize(pr->module, s->fn_lo, &in);

		fprintf(out, "\t\t0x%llx (%s+0x%llx): %s\n", (unsigned long long)s->addr,
			nm ? in->name : "?", (unsigned long long)(s->addr - s->fn_lo),
			role < sizeof(role_names) / sizeof(*role_names) && role_names[role]
				? role_names[role] : "?");
	}
}
