/* SPDX-License-Identifier: MIT */
/*
 * The processes of a session (docs/processes.md): the forks of the
 * processes dtrace traces, and, given probe descriptions without -p or -c,
 * every process whose probes they match, running when dtrace starts or
 * started later.
 *
 * The trace dtrace opens is the lead (cs__lead()): BEGIN, END, tick-n and
 * ERROR run there, and it holds what the session has once: the heading,
 * exit(), the aggregations' variables and their totals, into which every
 * process's threads' tables are merged as DTrace merges its CPUs'. -p's
 * and -c's process is the lead's own. Every other process is a member: a
 * trace of its own, with its probes (numbered by the lead, so an ID names
 * one probe of one process), its ECBs, its session in the process (a slot
 * of its control block, docs/runtime.md) and its buffers, whose records it
 * prints into the lead's output.
 *
 * Members come two ways:
 *
 *  - Forks. Every session follows forks (UDT_CTL_FOLLOW): a child keeps its
 *    parent's session, the same enablings in its copy of the control block,
 *    and makes memory of its own at its first fire (runtime/session.c).
 *    When a traced process forks (the kernel's event, or a new pid whose
 *    parent is traced: procwatch.c), the child is adopted: a member whose
 *    ECBs are its parent's (the same EPIDs and aggregation IDs as the area
 *    the child copied: shared, not compiled again, with the probes swapped
 *    for the child's own, which the lead numbers anew), whose slot, session
 *    and enabling generations are its parent's, and which maps the child's
 *    memory once the child's runtime has written its pid into the slot.
 *    The parent's ECBs outlive the parent while a child uses them (refs).
 *  - No -p or -c (every_process): every process found is looked at. Its
 *    mappings are read (/proc/PID/maps: the permission check too), each
 *    file's providers found once (cached by device and inode), and a
 *    process with a provider a description may match is opened whole: its
 *    probes matched, the clauses compiled for them, the runtime loaded into
 *    it if it has none (docs/injection.md), a session started. A process
 *    that matches nothing is looked at again when it execs, and now and then
 *    (cheaply: its mappings' files compared with the last look's). One that
 *    dtrace may not inspect (another user's, not dumpable) and whose
 *    executable, as its command line names it, has a matching provider is
 *    said once on stderr: never a silent gap.
 *  - Execs of -p's or -c's tree (the process, and its descendants whether
 *    traced or not: struct proc's tree): the new image is looked at as above
 *    (only those images: -p and -c name one process tree), the lead's
 *    included; the lead then keeps what the session has once, its process's
 *    old image read to the end, and the new image is a member.
 *
 * Each round every member is read (its buffers are in memory it shares with
 * dtrace: looking costs no system call); its heartbeat, its checks (a
 * session ended, a library loaded) and, until it has memory, the look for
 * it, come at a slower pace, so that a thousand idle processes cost little
 * (docs/benchmarks.md). A member whose process exits or execs is read for
 * the last time (its memory outlives it), its aggregations taken, and it is
 * kept (without its memory) until nothing refers to it.
 */
#include "consumer/internal.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SLOW_NS 1000000000ull      /* a member's heartbeat and checks: every second */
#define YOUNG_NS 1000000000ull     /* a member this young is looked at every round for memory */
#define UNMAPPED_NS 100000000ull   /* an older one without memory, every 100 ms */
#define KEEP_NS 10000000000ull     /* a gone member is kept this long for children to adopt */
#define RELOOK_NS 30000000000ull   /* every process is looked at again this often */
#define LOOKS_PER_ROUND 32         /* processes looked at in one round, at most */
/* after an exec, the new image is looked at as its dynamic linker loads its libraries */
static const uint64_t exec_looks[] = { 5000000ull, 50000000ull, 500000000ull, 3000000000ull };

/* What is known of a process of the system (every_process). */
enum verdict {
	V_NONE,                    /* not looked at yet */
	V_NOMATCH,                 /* nothing matched: looked at again later */
	V_MEMBER,                  /* traced */
	V_DENIED,                  /* not ours to trace (said, if it had the providers) */
	V_FAILED,                  /* matched, but could not be traced (said) */
};

struct proc {
	pid_t pid;
	enum verdict v;
	uint64_t sig;              /* its mappings' files, at the last look */
	uint64_t next_look;        /* 0: none planned */
	unsigned exec_look;        /* the next of exec_looks[] */
	bool said;                 /* its notice was given (once a process) */
	bool tree;                 /* -p's or -c's process or a descendant, not traced */
};

struct cs_group {
	struct cs_trace **m;       /* members, live and gone */
	size_t cnt, cap;
	struct pr_watch *watch;
	bool started;
	bool bad;                  /* a member corrupted its memory */
	size_t vars[DL_VAR_SCOPES]; /* the variables laid out when the session started */
	uint64_t lead_due;         /* when the lead's image is next checked (its exec) */
	/* the processes looked at: every process (every_process), or the images that
	   -p's or -c's process and its descendants exec */
	const char **descs;        /* the descriptions of processes' probes */
	size_t desc_cnt;
	struct proc *procs;        /* sorted by pid */
	size_t proc_cnt, proc_cap;
	struct pb_files files;     /* the providers of the files processes map */
	pid_t relook_at;           /* the periodic looks' position (a pid) */
	uint64_t relook_last;      /* when they were last counted (ns) */
	uint64_t relook_credit;    /* ns x processes owed since: one look a RELOOK_NS */
	char *runtime;             /* the runtime dtrace loads into processes */
	int follow_fd;             /* -c's descendants announce new images here, else -1 */
	size_t max_said;           /* the limit was said */
};

static struct cs_group *group(struct cs_trace *lead)
{
	if (!lead->grp) {
		lead->grp = udt__xcalloc(1, sizeof(*lead->grp));
		lead->grp->follow_fd = -1;
	}
	return lead->grp;
}

size_t cs__group_members(const struct cs_trace *lead, struct cs_trace *const **ret)
{
	*ret = lead->grp ? lead->grp->m : NULL;
	return lead->grp ? lead->grp->cnt : 0;
}

uint32_t cs__probe_ids(struct cs_trace *t, uint32_t n)
{
	struct cs_trace *lead = cs__lead(t);

	if (!lead->next_probe_id) {
		lead->next_probe_id = PB_PROBE_ERROR + 1;
		for (size_t i = 0; i < lead->probes.cnt; i++)
			if (lead->probes.v[i].id >= lead->next_probe_id)
				lead->next_probe_id = lead->probes.v[i].id + 1;
	}
	uint32_t first = lead->next_probe_id;
	lead->next_probe_id += n;
	return first;
}

size_t cs__group_matches(const struct cs_trace *lead, const struct dl_clause *cl)
{
	size_t n = 0;

	for (size_t i = 0; lead->grp && i < lead->grp->cnt; i++)
		n += cs_trace_clause_matches(lead->grp->m[i], cl);
	return n;
}

/* dtrace's notices about processes: on stderr, after what was printed. */
static void say(struct cs_trace *lead, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void say(struct cs_trace *lead, const char *fmt, ...)
{
	va_list ap;

	fflush(lead->out);
	va_start(ap, fmt);
	udt__vwarn(fmt, ap);
	va_end(ap);
}

/* -- Members -------------------------------------------------------------------------------- */

static struct cs_trace *member_new(struct cs_trace *lead)
{
	struct cs_trace *t = udt__xcalloc(1, sizeof(*t));

	t->lead = lead;
	t->pidfd = -1;
	t->prog = lead->prog;
	t->o = lead->o;
	t->out = lead->out;
	t->proc = &t->own_proc;
	t->born_ns = udt__now_ns();
	t->slow_due = t->born_ns + SLOW_NS;
	t->fork_wait = lead->grp && pr_watch_fd(lead->grp->watch) >= 0;
	return t;
}

static void member_free(struct cs_trace *t)
{
	if (t->fork_src)
		t->fork_src->refs--;
	cs_trace_close(t);
}

static struct cs_trace *member_of(const struct cs_trace *lead, pid_t pid)
{
	if (lead->proc && lead->proc->pid == pid && !lead->target_gone)
		return (struct cs_trace *)lead;
	for (size_t i = 0; lead->grp && i < lead->grp->cnt; i++) {
		struct cs_trace *t = lead->grp->m[i];
		if (!t->gone && t->proc->pid == pid)
			return t;
	}
	return NULL;
}

static size_t live_members(const struct cs_group *g)
{
	size_t n = 0;

	for (size_t i = 0; i < g->cnt; i++)
		n += !g->m[i]->gone;
	return n;
}

/* Room for one more process (-x maxprocs)? Said once when there is none. */
static bool room(struct cs_trace *lead, pid_t pid)
{
	struct cs_group *g = group(lead);

	if (live_members(g) < lead->o.maxprocs)
		return true;
	if (g->max_said++ < 1)
		say(lead, "pid %d and the processes after it are not traced: dtrace follows %u "
		    "processes at most (-x maxprocs)", (int)pid, lead->o.maxprocs);
	return false;
}

static void push_member(struct cs_trace *lead, struct cs_trace *t)
{
	struct cs_group *g = group(lead);

	UDT__PUSH(g->m, g->cnt, g->cap, t);
}

/*
 * The probe of t (a fork child) that is its parent's probe pr: the same site
 * (semaphore, or first site's address), function and name; a profile probe
 * is made in t's list. NULL when the child has none (it is not mapped there).
 */
static struct pb_probe *child_probe(struct cs_trace *t, const struct pb_probe *pr)
{
	for (size_t i = 0; i < t->probes.cnt; i++) {
		struct pb_probe *q = &t->probes.v[i];
		if (q->sem == pr->sem && q->prof_kind == pr->prof_kind && !strcmp(q->name, pr->name) &&
		    !strcmp(q->func, pr->func))
			return q;
	}
	return NULL;
}

/* A copy of the n elements of sz bytes at v, and room for one more (v NULL: none, n 0). */
static void *copy_of(const void *v, size_t n, size_t sz)
{
	void *c = udt__xcalloc(n + 1, sz);

	if (n)
		memcpy(c, v, n * sz);
	return c;
}

/* A fork child of src that dtrace will not follow, whose slot's flags were flags: its first
   fire waits for nothing (UDT_CTL_FORKWAIT). */
static void wait_not(const struct pr_proc *child, const struct cs_trace *src, uint32_t flags)
{
	flags &= ~UDT_CTL_FORKWAIT;
	(void)pr_proc_write(child, src->ctl + offsetof(struct udt_control, flags), &flags,
			    sizeof(flags));
}

/*
 * Adopt pid, a fork child of src (the lead or a member), which kept src's
 * session: a member with src's ECBs, slot and enablings, its own probes.
 */
static void adopt(struct cs_trace *lead, struct cs_trace *src, pid_t pid)
{
	struct pr_proc peek = { .pid = pid };
	struct udt_control c;
	uint8_t live = 0;

	if (!src->attached || src->target_gone)
		return;
	/* its copy of src's slot: still live, our session, and its pid written or not yet */
	if (pr_proc_read(&peek, src->ctl, &c, sizeof(c)) ||
	    pr_proc_read(&peek, cs__live_addr(src), &live, 1) || live != 1 ||
	    c.session != src->session || c.consumer_pid != getpid() ||
	    (c.pid != pid && c.pid != -pid && c.pid != src->proc->pid))
		return;
	if (!room(lead, pid)) {
		wait_not(&peek, src, c.flags);
		return;
	}

	struct cs_trace *t = member_new(lead);
	int err = pr_proc_open(t->proc, pid);
	if (err) {
		if (err != -ESRCH)
			say(lead, "failed to follow pid %d, a fork of pid %d: %s", (int)pid,
			    (int)src->proc->pid, t->proc->errmsg);
		wait_not(&peek, src, c.flags);
		member_free(t);
		return;
	}
	/* its probes, numbered after every other process's */
	uint32_t first = cs__probe_ids(lead, 0);
	pb_probes_load_at(&t->probes, t->proc, first);
	(void)cs__probe_ids(lead, (uint32_t)t->probes.cnt);
	/* the profile provider's probes src enabled (the runtime arms them in the child) */
	for (size_t i = 0; i < src->ecb_cnt; i++) {
		const struct pb_probe *pr = src->ecbs[i].probe;
		if (!pr->prof_kind || child_probe(t, pr))
			continue;
		char *desc = udt__xasprintf("profile:::%s", pr->name), *why = NULL;
		if (pb_probes_add_profile(&t->probes, desc, true, &why) > 0)
			t->probes.v[t->probes.cnt - 1].id = cs__probe_ids(lead, 1);
		free(why);
		free(desc);
	}
	(void)pr_proc_execname(t->proc, t->execname, sizeof(t->execname));
	(void)cs__agg_declare(t, NULL);

	/* src's ECBs (the child runs src's area: the same EPIDs), each on the child's probe */
	t->ecbs = copy_of(src->ecbs, src->ecb_cnt, sizeof(*t->ecbs));
	t->ecb_cnt = t->ecb_borrowed = src->ecb_cnt;
	t->ecb_cap = src->ecb_cnt + 1;
	for (size_t i = 0; i < t->ecb_cnt; i++) {
		struct pb_probe *q = t->ecbs[i].local ? NULL : child_probe(t, t->ecbs[i].probe);
		if (q)
			t->ecbs[i].probe = q;
	}
	t->aggacts = copy_of(src->aggacts, src->aggact_cnt, sizeof(*t->aggacts));
	t->aggact_cnt = t->aggact_borrowed = src->aggact_cnt;
	t->aggact_cap = src->aggact_cnt + 1;
	t->fork_src = src;
	src->refs++;
	t->o = src->o; /* (its sizes, as the session in the child has them) */
	t->spec_used = src->spec_used;
	t->names_addrs = src->names_addrs;
	t->destructive_used = src->destructive_used;

	/* the session: src's slot and enablings, as the child copied them */
	t->ctlblk = src->ctlblk;
	t->fire = src->fire;
	t->slot = src->slot;
	t->ctl = src->ctl;
	t->session = src->session;
	t->area = src->area;
	t->img.buf = udt__xcalloc(1, UDT_AREA_SZ);
	memcpy(t->img.buf, src->img.buf, src->img.used);
	t->img.used = src->img.used;
	uint32_t gen_off = 0;
	(void)pr_proc_read(t->proc, cs__area_addr(t) + offsetof(struct udt_area_hdr, gen_off),
			   &gen_off, sizeof(gen_off));
	for (size_t i = 0; i < src->gen_cnt; i++) /* (those published before the fork) */
		if (!i || src->gens[i].off <= gen_off)
			UDT__PUSH(t->gens, t->gen_cnt, t->gen_cap, src->gens[i]);
	if (src->site_cnt) {
		t->sites = udt__xcalloc(src->site_cnt, sizeof(*t->sites));
		memcpy(t->sites, src->sites, src->site_cnt * sizeof(*t->sites));
		t->site_cnt = src->site_cnt;
		t->site_off = src->site_off;
	}
	char *why = NULL;
	if (cs__vars_open(t, &why)) {
		free(why);
		wait_not(&peek, src, c.flags);
		member_free(t);
		return;
	}
	t->attached = true;
	cs__heartbeat(t);
	cs__stack_start(t);
	cs__late_start(t);
	/* (a member's libraries are looked for once a second: its dlopen() waits for none;
	   its other flags as they are, FORKWAIT's wait for its first fire too) */
	if (c.flags & UDT_CTL_LOADWAIT) {
		uint32_t f = c.flags & ~UDT_CTL_LOADWAIT;
		(void)pr_proc_write(t->proc, t->ctl + offsetof(struct udt_control, flags), &f,
				    sizeof(f));
	}
	push_member(lead, t);
}

/* -- Every process: looking at them ------------------------------------------------------- */

static struct proc *find_proc(struct cs_group *g, pid_t pid, bool add)
{
	size_t lo = 0, hi = g->proc_cnt;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (g->procs[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < g->proc_cnt && g->procs[lo].pid == pid)
		return &g->procs[lo];
	if (!add)
		return NULL;
	if (g->proc_cnt == g->proc_cap) {
		g->proc_cap = g->proc_cap ? 2 * g->proc_cap : 256;
		g->procs = udt__xreallocarray(g->procs, g->proc_cap, sizeof(*g->procs));
	}
	memmove(&g->procs[lo + 1], &g->procs[lo], (g->proc_cnt - lo) * sizeof(*g->procs));
	g->procs[lo] = (struct proc){ .pid = pid };
	g->proc_cnt++;
	return &g->procs[lo];
}

static void forget_proc(struct cs_group *g, pid_t pid)
{
	struct proc *p = find_proc(g, pid, false);

	if (!p)
		return;
	size_t i = (size_t)(p - g->procs);
	memmove(p, p + 1, (g->proc_cnt - i - 1) * sizeof(*p));
	g->proc_cnt--;
}

/*
 * pid may not be inspected: if the executable its command line names has a
 * provider a description matches, say so once (it is a process of the
 * kind traced, whose probes dtrace will not see).
 */
static void denied(struct cs_trace *lead, pid_t pid)
{
	struct cs_group *g = group(lead);
	char *exe = pr_pid_cmd_exe(pid), comm[64] = "";

	if (!exe || pb_files_path(&g->files, g->descs, g->desc_cnt, exe, pid) != PB_FM_NAMED) {
		free(exe);
		return;
	}
	struct pr_proc p = { .pid = pid };
	(void)pr_proc_execname(&p, comm, sizeof(comm));
	long uid = pr_pid_uid(pid);
	if (uid >= 0 && uid != (long)geteuid())
		say(lead, "pid %d (%s) is not traced: it runs as uid %ld, and dtrace as uid %ld may "
		    "not trace it", (int)pid, comm, uid, (long)geteuid());
	else
		say(lead, "pid %d (%s) is not traced: dtrace may not trace it (it is not dumpable, "
		    "runs set-id, or ptrace is restricted)", (int)pid, comm);
	free(exe);
}

/* Has pid exited (gone, or a zombie)? */
static bool exited(pid_t pid)
{
	char state = 0;

	return pr_pid_stat(pid, NULL, NULL, &state) || state == 'Z' || state == 'X';
}

/*
 * Open pid as a member if the program's descriptions match its probes: its
 * probes, the runtime loaded into it if it has none (once it is known to
 * match), its clauses compiled. 1 (*ret made), 0 (nothing matches), -1
 * (it matches but cannot be traced: said if a file it maps names a provider
 * that matches, how: a process matched by PB_FM_ANY alone, one whose runtime is
 * unreadable or of another version, may not have the provider at all), or
 * -2 (its runtime is being loaded: to be looked at again soon).
 */
static int member_open(struct cs_trace *lead, pid_t pid, enum pb_fmatch how, struct cs_trace **ret)
{
	struct cs_group *g = group(lead);
	struct cs_trace *t = member_new(lead);
	size_t ncl;
	struct dl_clause *const *cls = dl_program_clauses(lead->prog, &ncl);
	char *why = NULL;
	int err = pr_proc_open(t->proc, pid);

	if (err || !pr_proc_has_probes(t->proc))
		goto nomatch;
	(void)pr_proc_execname(t->proc, t->execname, sizeof(t->execname));
	for (int pass = 0;; pass++) {
		bool any = false;
		pb_probes_load_at(&t->probes, t->proc, cs__probe_ids(lead, 0));
		for (size_t c = 0; c < ncl && !any; c++)
			for (size_t d = 0; d < cls[c]->pdesc_cnt && !any; d++)
				for (size_t i = PB_PROBE_ERROR; i < t->probes.cnt && !any; i++)
					any = pb_desc_match(cls[c]->pdescs[d], &t->probes.v[i]);
		/* SDT(9) providers are the runtime's to name: a process without one may have
		   them too */
		bool sdt = false;
		for (size_t m = 0; m < t->proc->mod_cnt; m++)
			sdt |= t->proc->mods[m]->sdt;
		if (!any && !(sdt && pass == 0))
			goto nomatch;
		if (pass)
			break;
		err = pr_runtime_check(t->proc, &why);
		free(why);
		why = NULL;
		if (!err)
			break;
		if (err == -EAGAIN) {
			member_free(t);
			return -2;
		}
		/* it matches and has no runtime: dtrace's is loaded into it (one dtrace at a time) */
		int lock = pr_attach_lock(pid, &why);
		err = lock < 0 ? lock : pr_runtime_load(t->proc, g->runtime, &why);
		pr_attach_unlock(lock);
		if (err == -EAGAIN) {
			/* (its loader is at work: looked at again, as after an exec) */
			free(why);
			member_free(t);
			return -2;
		}
		if (err < 0)
			goto failed;
		pb_probes_free(&t->probes);
	}
	(void)cs__probe_ids(lead, (uint32_t)t->probes.cnt);
	(void)pr_proc_execname(t->proc, t->execname, sizeof(t->execname));
	(void)cs__agg_declare(t, NULL);
	for (size_t c = 0; c < ncl; c++) {
		for (size_t d = 0; d < cls[c]->pdesc_cnt; d++) {
			if (pb_desc_kind(cls[c]->pdescs[d]) != PB_DESC_PROC)
				continue;
			for (size_t i = PB_PROBE_ERROR; i < t->probes.cnt; i++) {
				struct pb_probe *pr = &t->probes.v[i];
				if (pb_desc_match(cls[c]->pdescs[d], pr) &&
				    cs__compile_probe(t, cls[c], pr, &why))
					goto failed;
			}
		}
	}
	if (!t->ecb_cnt)
		goto nomatch;
	/* once the session has started, the variables' places are fixed (late.c) */
	for (int s = 0; s < DL_VAR_SCOPES && g->started; s++) {
		if (dl_program_var_count(lead->prog, (enum dl_var_scope)s) > g->vars[s]) {
			why = udt__xstrdup("its clauses declare variables the session did not lay out "
					   "when it started (they matched no probe then, and did not "
					   "compile without one)");
			goto failed;
		}
	}
	cs__order_ecbs(t);
	bool target;
	if (cs__vars_open(t, &why) || cs__size_buffers(t, &target, &why) ||
	    cs__session_check(t, &why))
		goto failed;
	t->said_fail = how == PB_FM_NAMED;
	*ret = t;
	return 1;
nomatch:
	member_free(t);
	return 0;
failed:
	/* (a process that exited meanwhile, or is exiting, is no gap) */
	if (how == PB_FM_NAMED && err != -ESRCH && !exited(pid))
		say(lead, "pid %d (%s) is not traced: %s", (int)pid, t->execname,
		    why ? why : "its probes could not be enabled");
	free(why);
	member_free(t);
	return -1;
}

/* Start member t's session, after BEGIN: 0, or -1 (said). */
static int member_start(struct cs_trace *lead, struct cs_trace *t)
{
	char *why = NULL;

	if (cs__attach(t, &why) || cs_trace_arm(t, &why)) {
		if (t->said_fail && !exited(t->proc->pid))
			say(lead, "pid %d (%s) is not traced: %s", (int)t->proc->pid, t->execname, why);
		free(why);
		cs__detach(t);
		return -1;
	}
	return 0;
}

/* Plan looks at pid's new image as it loads its libraries. */
static void plan_exec_looks(struct cs_trace *lead, pid_t pid)
{
	struct proc *p = find_proc(group(lead), pid, true);

	p->tree = !lead->o.every_process;
	p->v = V_NONE;
	p->sig = 0;
	p->exec_look = 0;
	p->next_look = udt__now_ns() + exec_looks[0];
}

/* Look at pid (every_process): a member if it matches. */
static void look(struct cs_trace *lead, pid_t pid)
{
	struct cs_group *g = group(lead);
	struct proc *p = find_proc(g, pid, true);
	enum pb_fmatch match;
	uint64_t sig;

	if (pid == getpid() || member_of(lead, pid) || p->v == V_FAILED)
		return;
	int err = pb_files_proc(&g->files, g->descs, g->desc_cnt, pid, &match, &sig);
	if (err == -EACCES || err == -EPERM) {
		if (!p->said)
			denied(lead, pid);
		p->said = true;
		p->v = V_DENIED;
		return;
	}
	if (err || (p->v == V_NOMATCH && sig == p->sig))
		return;
	p->sig = sig;
	p->v = V_NOMATCH;
	if (!match || !room(lead, pid))
		return;
	struct cs_trace *t = NULL;
	int r = member_open(lead, pid, match, &t);
	/* (p may have moved: member_open() looked at files, not at processes) */
	p = find_proc(g, pid, true);
	if (r == -2) {
		/* (as after an exec: its loader is at work) */
		if (!p->next_look)
			plan_exec_looks(lead, pid);
		p->v = V_NONE;
		p->sig = 0;
	} else if (r < 0) {
		p->v = V_FAILED;
	}
	if (r <= 0)
		return;
	if (g->started && member_start(lead, t)) {
		member_free(t);
		p->v = V_FAILED;
		return;
	}
	p->v = V_MEMBER;
	push_member(lead, t);
}

/* The looks due: planned ones, then (a few a round) the periodic ones. */
static void looks_due(struct cs_trace *lead)
{
	struct cs_group *g = group(lead);
	uint64_t now = udt__now_ns();
	unsigned n = 0;

	for (size_t i = 0; i < g->proc_cnt && n < LOOKS_PER_ROUND; i++) {
		struct proc *p = &g->procs[i];
		if (!p->next_look || p->next_look > now)
			continue;
		pid_t pid = p->pid;
		p->exec_look++;
		p->next_look = p->exec_look < UDT__ARRAY_SIZE(exec_looks)
				       ? now + exec_looks[p->exec_look] : 0;
		look(lead, pid);
		n++;
	}
	if (!lead->o.every_process)
		return; /* (-p's or -c's descendants: only the images they exec) */
	/* the others now and then (a library loaded long after the start): each once in
	   RELOOK_NS, as many this round as the time since the last owes (in ns x processes) */
	size_t cnt = pr_watch_count(g->watch), k = 0;
	if (g->relook_last)
		g->relook_credit += (now - g->relook_last) * cnt;
	g->relook_last = now;
	if (g->relook_credit > RELOOK_NS * LOOKS_PER_ROUND)
		g->relook_credit = RELOOK_NS * LOOKS_PER_ROUND;
	size_t budget = g->relook_credit / RELOOK_NS;
	if (!budget)
		return;
	g->relook_credit -= budget * RELOOK_NS;
	pid_t *pids;
	cnt = pr_watch_list(g->watch, &pids);
	while (k < cnt && pids[k] <= g->relook_at)
		k++;
	for (size_t j = 0; j < budget && j < cnt && n < LOOKS_PER_ROUND; j++) {
		if (k >= cnt)
			k = 0;
		pid_t pid = pids[k++];
		const struct proc *p = find_proc(g, pid, false);
		g->relook_at = pid;
		if (!p || (p->v == V_NOMATCH && !p->next_look)) {
			look(lead, pid);
			n++;
		}
	}
	free(pids);
}

static bool old_image_gone(struct cs_trace *lead, struct cs_trace *t);

/*
 * A new image of -c's tree, pid, waiting in its runtime's constructor with
 * the handshake's descriptor fd: looked at now, its session started and its
 * buffers mapped if it matches; then let go.
 */
static void announced(struct cs_trace *lead, pid_t pid, int fd)
{
	struct cs_group *g = group(lead);
	struct proc *p = find_proc(g, pid, true);

	/* (a new image: whatever was known of the pid is its old one's) */
	p->tree = true;
	if (p->v != V_MEMBER && p->v != V_DENIED) {
		p->v = V_NONE;
		p->sig = 0;
	}
	/* (its exec's event may not have been read yet) */
	(void)old_image_gone(lead, member_of(lead, pid));
	if (pr_sync_step(fd, 0, 'R', 1000)) {
		look(lead, pid);
		struct cs_trace *t = member_of(lead, pid);
		if (t && t->attached && !t->gone && pr_sync_step(fd, 'S', 'M', 1000))
			(void)cs_trace_map(t);
		(void)pr_sync_step(fd, 'G', 0, 0);
	}
	close(fd);
}

/* The announcements of new images (cs_trace_follow()), a few a round. */
static void take_announcements(struct cs_trace *lead)
{
	struct cs_group *g = group(lead);
	pid_t pid;
	int fd;

	for (int n = 0; n < LOOKS_PER_ROUND && (fd = pr_follow_take(g->follow_fd, &pid)) >= 0; n++)
		announced(lead, pid, fd);
}

void cs_trace_follow(struct cs_trace *t, int fd)
{
	struct cs_group *g = group(t);

	if (g->follow_fd >= 0)
		close(g->follow_fd);
	g->follow_fd = fd;
}

/* The descriptions of processes' probes, to look at processes with: any? */
static bool take_descs(struct cs_trace *lead)
{
	struct cs_group *g = group(lead);
	size_t ncl, cap = 0;
	struct dl_clause *const *cls = dl_program_clauses(lead->prog, &ncl);

	for (size_t c = 0; c < ncl; c++)
		for (size_t d = 0; d < cls[c]->pdesc_cnt; d++)
			if (pb_desc_kind(cls[c]->pdescs[d]) == PB_DESC_PROC)
				UDT__PUSH(g->descs, g->desc_cnt, cap, cls[c]->pdescs[d]);
	if (g->desc_cnt)
		g->runtime = pr_runtime_path();
	return g->desc_cnt;
}

int cs__group_open_all(struct cs_trace *lead, char **ret_err)
{
	struct cs_group *g = group(lead);
	size_t ncl;
	struct dl_clause *const *cls = dl_program_clauses(lead->prog, &ncl);
	pid_t *pids;
	size_t n;

	if (!take_descs(lead))
		return 0;
	if (pr_watch_open(&g->watch, lead->o.procwatch, ret_err))
		return -1;
	n = pr_watch_list(g->watch, &pids);
	for (size_t i = 0; i < n; i++)
		look(lead, pids[i]);
	free(pids);
	/* every description must match a probe somewhere, as DTrace's do (-Z: not yet) */
	for (size_t c = 0; c < ncl && !lead->o.zdefs; c++) {
		for (size_t d = 0; d < cls[c]->pdesc_cnt; d++) {
			const char *desc = cls[c]->pdescs[d];
			bool any = pb_desc_kind(desc) != PB_DESC_PROC;
			for (size_t i = 0; i < lead->probes.cnt && !any; i++)
				any = pb_desc_match(desc, &lead->probes.v[i]);
			for (size_t m = 0; m < g->cnt && !any; m++)
				for (size_t i = 0; i < g->m[m]->probes.cnt && !any; i++)
					any = pb_desc_match(desc, &g->m[m]->probes.v[i]);
			if (!any) {
				char *why = pb_desc_nomatch(desc);
				*ret_err = udt__xasprintf("invalid probe specifier %s: %s", desc, why);
				free(why);
				return -1;
			}
		}
	}
	return 0;
}

/* -- The session -------------------------------------------------------------------------------- */

int cs__group_start(struct cs_trace *lead, char **ret_err)
{
	struct cs_group *g = group(lead);

	for (int s = 0; s < DL_VAR_SCOPES; s++)
		g->vars[s] = dl_program_var_count(lead->prog, (enum dl_var_scope)s);
	g->started = true;
	/* the members found before BEGIN */
	for (size_t i = 0; i < g->cnt; i++) {
		struct cs_trace *t = g->m[i];
		if (member_start(lead, t)) {
			struct proc *p = find_proc(g, t->proc->pid, true);
			p->v = V_FAILED;
			member_free(t);
			memmove(&g->m[i], &g->m[i + 1], (g->cnt - i - 1) * sizeof(*g->m));
			g->cnt--;
			i--;
		}
	}
	/* processes to follow: the forks of -p's or -c's, and the images they exec (or every
	   process, already watched) */
	if (!g->watch && lead->proc && !lead->o.nofollowfork &&
	    (take_descs(lead) || lead->attached) &&
	    pr_watch_open(&g->watch, lead->o.procwatch, ret_err))
		return -1;
	/* (images of the tree announce themselves only to a dtrace that follows it) */
	if (g->follow_fd >= 0 && (!g->watch || !g->descs)) {
		close(g->follow_fd);
		g->follow_fd = -1;
	}
	/* (its forks are then adopted at once: their first fires may wait for dtrace) */
	lead->fork_wait = pr_watch_fd(g->watch) >= 0;
	cs__flags_update(lead);
	g->lead_due = udt__now_ns() + SLOW_NS;
	return 0;
}

/* Member t's process is gone (exited), or its image (exec): read for the last time. */
static void member_gone(struct cs_trace *lead, struct cs_trace *t)
{
	if (t->gone)
		return;
	t->target_gone = true; /* (nothing of it is written any more) */
	cs__finish_proc(t);
	group(lead)->bad |= t->shm_bad;
	t->gone = true;
	t->gone_ns = udt__now_ns();
	cs__late_free(t);
	cs__agg_cur_free(t);
}

static bool member_alive(struct cs_trace *t);

/*
 * Has the lead's process (-p's or -c's) exec'd (seen: the kernel said so),
 * ending the session in it? Then its old image is read for the last time
 * (its memory outlives it), and the pid may be looked at as any other: its
 * new image may match. (Without a session there, only the kernel can say.)
 */
static bool lead_execd(struct cs_trace *lead, bool seen)
{
	if (lead->target_gone || exited(lead->proc->pid) ||
	    (lead->attached ? member_alive(lead) : !seen))
		return false;
	cs_trace_target_gone(lead);
	return true;
}

/*
 * t's process (the lead's, a member's, or NULL: none traced) exec'd: t, its
 * old image, is read for the last time. false: t is the new image already
 * (an event read late).
 */
static bool old_image_gone(struct cs_trace *lead, struct cs_trace *t)
{
	if (t == lead)
		return lead_execd(lead, true);
	if (t) {
		if (member_alive(t))
			return false;
		member_gone(lead, t);
	}
	return true;
}

/* The kernel's events (or the scan's) since the last round. */
static void take_events(struct cs_trace *lead)
{
	struct cs_group *g = group(lead);
	struct pr_pev *ev;
	size_t n = pr_watch_take(g->watch, &ev);

	for (size_t i = 0; i < n; i++) {
		struct cs_trace *t = member_of(lead, ev[i].pid), *src;
		struct proc *p;
		switch (ev[i].kind) {
		case PR_PEV_FORK:
			if (t)
				break; /* (traced already: found before its event was read) */
			p = find_proc(g, ev[i].parent, false);
			if ((src = member_of(lead, ev[i].parent))) {
				adopt(lead, src, ev[i].pid);
				/* (not adopted: it exec'd already, or left the session) */
				if (member_of(lead, ev[i].pid) || !g->descs)
					break;
			} else if (!g->descs || (!lead->o.every_process && !(p && p->tree))) {
				break;
			}
			/* a fork of a process that matched nothing is its copy: the same verdict,
			   when the kernel says it is a fork (a scan's new pid may have exec'd) */
			if (!src && pr_watch_fd(g->watch) >= 0 && p && p->v == V_NOMATCH &&
			    !p->next_look) {
				uint64_t sig = p->sig;
				p = find_proc(g, ev[i].pid, true);
				p->v = V_NOMATCH;
				p->sig = sig;
				p->tree = !lead->o.every_process;
			} else {
				plan_exec_looks(lead, ev[i].pid);
			}
			break;
		case PR_PEV_EXEC:
			if (!old_image_gone(lead, t))
				break;
			p = find_proc(g, ev[i].pid, false);
			if (g->descs && (lead->o.every_process || t || (p && p->tree)))
				plan_exec_looks(lead, ev[i].pid);
			break;
		case PR_PEV_EXIT:
			if (t && (t == lead || member_alive(t)))
				break; /* (the pid's next process) */
			if (t)
				member_gone(lead, t);
			forget_proc(g, ev[i].pid);
			break;
		}
	}
	free(ev);
}

/* Is member t's process still the one traced (not exited, its session still there)? */
static bool member_alive(struct cs_trace *t)
{
	struct udt_control c;

	if (exited(t->proc->pid))
		return false;
	/* (an exec replaced the image: the slot is not ours, or not there) */
	return !pr_proc_read(t->proc, t->ctl, &c, sizeof(c)) && c.session == t->session &&
	       c.consumer_pid == getpid();
}

/* Member t's round: its buffers; its heartbeat and checks when due. */
static void member_round(struct cs_trace *lead, struct cs_trace *t, uint64_t now)
{
	bool slow = now >= t->slow_due;

	/* no memory yet, and not young: looked at every 100 ms */
	if (!t->shm && !slow && now - t->born_ns > YOUNG_NS && now < t->map_due)
		return;
	if (!t->shm)
		t->map_due = now + UNMAPPED_NS;
	if (slow) {
		t->slow_due = now + (t->o.deadman_ns / 4 < SLOW_NS ? t->o.deadman_ns / 4 : SLOW_NS);
		if (!member_alive(t)) {
			member_gone(lead, t);
			/* (alive: it exec'd, and its event was not seen, as a scan sees none) */
			if (group(lead)->descs && !exited(t->proc->pid))
				plan_exec_looks(lead, t->proc->pid);
			return;
		}
	}
	if (cs__work_proc(t, slow) == CS_WORK_ERROR)
		member_gone(lead, t); /* (said why) */
}

void cs__group_work(struct cs_trace *lead)
{
	struct cs_group *g = lead->grp;
	uint64_t now = udt__now_ns();

	if (!g)
		return;
	if (g->watch)
		take_events(lead);
	/* the lead's exec, when its event was not seen (a scan sees none) */
	if (g->descs && !lead->o.every_process && now >= g->lead_due) {
		g->lead_due = now + SLOW_NS;
		if (lead_execd(lead, false))
			plan_exec_looks(lead, lead->proc->pid);
	}
	if (g->descs)
		looks_due(lead);
	if (g->follow_fd >= 0 && g->started)
		take_announcements(lead);
	for (size_t i = 0; i < g->cnt && !lead->done; i++)
		if (!g->m[i]->gone)
			member_round(lead, g->m[i], now);
	/* gone members nothing refers to any more go */
	for (size_t i = 0; i < g->cnt; i++) {
		struct cs_trace *t = g->m[i];
		if (!t->gone || t->refs || now - t->gone_ns < KEEP_NS)
			continue;
		member_free(t);
		memmove(&g->m[i], &g->m[i + 1], (g->cnt - i - 1) * sizeof(*g->m));
		g->cnt--;
		i--;
	}
}

uint64_t cs__group_due_in(const struct cs_trace *lead)
{
	const struct cs_group *g = lead->grp;
	uint64_t now = udt__now_ns(), iv = UINT64_MAX;

	if (!g)
		return iv;
	for (size_t i = 0; i < g->cnt; i++) {
		const struct cs_trace *t = g->m[i];
		if (t->gone)
			continue;
		/* a young member without memory is looked at often: its first records may be a
		   process's last (it waits for dtrace at exit, a moment only) */
		uint64_t want = t->shm ? cs__pace(t) : now - t->born_ns < YOUNG_NS ? 2000000ull
										  : 10000000ull;
		iv = want < iv ? want : iv;
	}
	uint64_t scan = pr_watch_due_in(g->watch);
	return scan < iv ? scan : iv;
}

void cs_trace_wait(struct cs_trace *t)
{
	uint64_t now = udt__now_ns(), ns = cs_trace_interval(t);

	/* (a round put off by the process events keeps its time) */
	if (!t->round_ran && t->round_due && t->round_due < now + ns)
		ns = t->round_due > now ? t->round_due - now : 0;
	else
		t->round_due = now + ns;
	t->round_ran = false;
	struct timespec ts = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };
	/* the kernel's process events wake it (a fork is followed at once), and a new
	   image's announcement (it waits for dtrace) */
	struct pollfd pfd[4] = { { t->grp ? pr_watch_fd(t->grp->watch) : -1, POLLIN, 0 },
				 { t->grp ? t->grp->follow_fd : -1, POLLIN, 0 },
				 { t->target_gone || t->pidfd_seen ? -1 : t->pidfd, POLLIN, 0 },
				 { cs__waker_fd(t), POLLIN, 0 } };
	uint64_t n;

	/* (and the process's exit, and its asking for a round: the pace of an idle session
	   is slow; a signal cuts it short, which is what we want) */
	int r = ppoll(pfd, 4, &ts, NULL);
	if (r > 0 && (pfd[3].revents & POLLIN))
		(void)!read(pfd[3].fd, &n, sizeof(n));
	/* the kernel's process events alone are the system's forks and exits: they are
	   looked at (cs__group_work()), the session's round waits for its time */
	t->round_now = r <= 0 || pfd[1].revents || pfd[2].revents || pfd[3].revents;
	/* (it stays readable while the process is a zombie that kill() still finds) */
	t->pidfd_seen |= pfd[2].revents != 0;
}

bool cs__group_stop(struct cs_trace *lead)
{
	struct cs_group *g = lead->grp;

	if (!g)
		return false;
	/* the forks made until now are followed (their last records count too) */
	if (g->watch && lead->attached)
		take_events(lead);
	for (size_t i = 0; i < g->cnt; i++) {
		struct cs_trace *t = g->m[i];
		if (t->gone)
			continue;
		if (!member_alive(t))
			t->target_gone = true;
		cs__finish_proc(t);
		g->bad |= t->shm_bad;
		t->gone = true;
	}
	return g->bad;
}

void cs__group_free(struct cs_trace *lead)
{
	struct cs_group *g = lead->grp;

	if (!g)
		return;
	for (size_t i = 0; i < g->cnt; i++)
		cs_trace_close(g->m[i]);
	free(g->m);
	pr_watch_close(g->watch);
	if (g->follow_fd >= 0)
		close(g->follow_fd);
	free(g->descs);
	free(g->procs);
	pb_files_free(&g->files);
	free(g->runtime);
	free(g);
	lead->grp = NULL;
}
