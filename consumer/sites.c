/* SPDX-License-Identifier: MIT */
/*
 * Enabling probes from SystemTap notes (docs/notes.md): the consumer's side
 * of runtime/sites.c.
 *
 * At the start of a session, the sites of every probe from notes that an ECB
 * of the target enables are laid out in the area (struct udt_sites, sorted
 * by address): each one's address, the key of its probe's ECBs (the probe's
 * first site), and its operands as struct udt_note_arg, a RIP-relative one's
 * symbol resolved to its address. Their semaphores join the session's undo
 * list, so that they are incremented and decremented, never overwritten, as
 * every other tracer does. A site is left out, with a warning, when an
 * operand cannot be read here, a symbol is not in its object's symbol
 * tables, or its byte is not the nop (another tracer's breakpoint, most
 * likely: a kernel uprobe shows its int3 in the process's memory).
 *
 * The runtime patches them when it syncs: at the -c handshake, or by the
 * call injected into a -p process (cs_trace_arm()); it says in the control
 * block what it did (site_armed, site_cnt, site_errno). At the end of the
 * session the consumer has it sync again (injected), which restores the
 * bytes; when that cannot be done, the consumer restores them itself through
 * /proc/PID/mem, one byte each, which is as safe as the int3 was. A consumer
 * that dies leaves that to the runtime: the first trap after the deadman, or
 * the next session's sync.
 */
#include "consumer/internal.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CTL_FIELD(f) (t->ctl + offsetof(struct udt_control, f))
#define INT3 0xcc

static int addr_cmp(const void *x, const void *y)
{
	const uint64_t *a = x, *b = y;

	return *a < *b ? -1 : *a > *b;
}

static int site_cmp(const void *x, const void *y)
{
	const struct udt_site *a = x, *b = y;

	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

/* The operands of the sites laid out, in one array (struct udt_sites' arg_off). */
struct oplist {
	struct udt_note_arg *v;
	size_t cnt, cap;
};

/*
 * Site n of probe pr as the runtime reads it (its operands appended to ops);
 * false (said) when it cannot be enabled.
 */
static bool make_site(struct cs_trace *t, const struct pb_probe *pr, const struct pr_note *n,
		      struct udt_site *ret, struct oplist *ops)
{
	struct udt_note_arg args[UDT_NOTE_MAX_ARGS];
	uint8_t b;

	memset(ret, 0, sizeof(*ret));
	ret->addr = n->pc;
	ret->key = pr->sem;
	ret->kind = UDT_SITE_NOTE;
	ret->arg_cnt = (uint8_t)n->arg_cnt;
	ret->arg_idx = (uint32_t)ops->cnt;
	for (uint32_t k = 0; k < n->arg_cnt; k++) {
		args[k] = n->args[k];
		if (n->args[k].kind == UDT_NARG_NONE) {
			pb_site_left_out(pr, n->pc, "its operand %u (in \"%s\") cannot be read here", k + 1,
				 n->argstr);
			return false;
		}
		if (n->arg_sym[k]) {
			uint64_t at;
			if (pr_module_sym_addr(pr->module, n->arg_sym[k], &at)) {
				pb_site_left_out(pr, n->pc, "its operand %u names %s, which is not in %s's symbols",
					 k + 1, n->arg_sym[k], pr->mod);
				return false;
			}
			args[k].disp += (int64_t)at;
		}
	}
	if (pr_proc_read(t->proc, n->pc, &b, 1)) {
		pb_site_left_out(pr, n->pc, "it cannot be read");
		return false;
	}
	/* (an int3 may be our own runtime's, left by a consumer that died: the runtime knows) */
	if (b != UDT_SITE_NOP && b != INT3 && b != 0xe9) {
		pb_site_left_out(pr, n->pc, "it is not the nop its note describes");
		return false;
	}
	for (uint32_t k = 0; k < n->arg_cnt; k++)
		UDT__PUSH(ops->v, ops->cnt, ops->cap, args[k]);
	return true;
}

/* Is addr in the sorted array v of n? */
static bool addr_in(const uint64_t *v, size_t n, uint64_t addr)
{
	return n && bsearch(&addr, v, n, sizeof(*v), addr_cmp);
}

/* Say which sites the runtime did not patch, and why (udt_site.status), but those in skip. */
static void report_statuses(struct cs_trace *t, const uint64_t *skip, size_t nskip)
{
	struct udt_site *v = udt__xcalloc(t->site_cnt, sizeof(*v));
	uint64_t at = cs__area_addr(t) + t->site_off;

	bool read = !pr_proc_read(t->proc, at, v, t->site_cnt * sizeof(*v));
	for (size_t k = 0; read && k < t->site_cnt; k++) {
		/* (by one probe of it) */
		for (size_t e = 0; !addr_in(skip, nskip, v[k].addr) && e < t->ecb_cnt; e++) {
			if (pb_probe_has_site(t->ecbs[e].probe, v[k].addr)) {
				pb_site_status_say(t->ecbs[e].probe, &v[k]);
				break;
			}
		}
	}
	free(v);
}

/* The pid probes of ECBs t->ecbs[idx[0..n)] (idx NULL: all) that run in the target. */
static size_t pid_probes(struct cs_trace *t, const size_t *idx, size_t n,
			 const struct pb_probe ***ret)
{
	size_t cnt = 0, cap = 0;

	*ret = NULL;
	for (size_t j = 0; j < (idx ? n : t->ecb_cnt); j++) {
		const struct cs_ecb *e = &t->ecbs[idx ? idx[j] : j];
		if (!e->local && e->probe->pid_kind)
			UDT__PUSH(*ret, cnt, cap, e->probe);
	}
	return cnt;
}

/*
 * The sites of the note probes of ECBs t->ecbs[idx[0..n)] (idx NULL: all of
 * t's), each probe's once, appended to *v (their operands to ops, their
 * semaphores to sems); *shstk: whether the process has shadow stacks (-1:
 * not looked yet).
 */
static void put_note_sites(struct cs_trace *t, const size_t *idx, size_t n, int *shstk,
			   struct udt_site **v, size_t *cnt, size_t *cap, struct oplist *ops,
			   struct cs_addrs *sems)
{
	const struct pb_probe **done = NULL;
	size_t ndone = 0, done_cap = 0;

	for (size_t j = 0; j < (idx ? n : t->ecb_cnt); j++) {
		const struct cs_ecb *e = &t->ecbs[idx ? idx[j] : j];
		const struct pb_probe *pr = e->probe;
		bool seen = false;

		if (e->local || !pr->notes)
			continue;
		for (size_t k = 0; k < ndone && !seen; k++)
			seen = done[k] == pr;
		if (seen)
			continue;
		UDT__PUSH(done, ndone, done_cap, pr);
		if (*shstk < 0)
			*shstk = pr_proc_shadow_stack(t->proc->pid);
		for (uint32_t s = 0; s < pr->note_cnt; s++) {
			const struct pr_note *no = &pr->notes[s];
			struct udt_site site;
			const char *why;

			if (*cnt == UDT_SITES_MAX) {
				pb_site_left_out(pr, no->pc, "a session enables at most %d sites",
						 UDT_SITES_MAX);
				break;
			}
			if (!make_site(t, pr, no, &site, ops))
				continue;
			/* a jump where it is sound (else the trap stays: dtrace -l -v says why),
			   unless traps are asked for */
			if (!t->o.note_traps)
				(void)pr_site_plan(pr->module, &site, *shstk, &why);
			UDT__PUSH(*v, *cnt, *cap, site);
			if (no->sem)
				cs__addrs_add(sems, no->sem);
		}
	}
	free(done);
}

/* The addresses of the note sites of v (cnt), sorted: the pid provider plans around them. */
static uint64_t *note_addrs(const struct udt_site *v, size_t cnt, size_t *ret_n)
{
	uint64_t *a = udt__xcalloc(cnt + 1, sizeof(*a));
	size_t n = 0;

	for (size_t i = 0; i < cnt; i++)
		if (v[i].kind == UDT_SITE_NOTE)
			a[n++] = v[i].addr;
	qsort(a, n, sizeof(*a), addr_cmp);
	*ret_n = n;
	return a;
}

/* Lay out sites v (cnt, their operands ops) as a table in a: its offset (its sites' in
   *ret_site_off). */
static uint32_t put_table(struct cs_area *a, struct udt_site *v, size_t cnt,
			  const struct oplist *ops, uint32_t *ret_site_off)
{
	struct udt_sites hdr = { .size = sizeof(hdr) };

	qsort(v, cnt, sizeof(*v), site_cmp);
	hdr.cnt = (uint32_t)cnt;
	hdr.site_off = cs__area_put(a, v, cnt * sizeof(*v));
	hdr.arg_cnt = (uint32_t)ops->cnt;
	hdr.arg_off = ops->cnt ? cs__area_put(a, ops->v, ops->cnt * sizeof(*ops->v)) : 0;
	*ret_site_off = hdr.site_off;
	return cs__area_put(a, &hdr, sizeof(hdr));
}

uint32_t cs__sites_put(struct cs_trace *t, struct cs_area *a, struct cs_addrs *sems)
{
	struct udt_site *v = NULL;
	size_t cnt = 0, cap = 0, nnotes;
	struct oplist ops = { 0 };
	uint32_t off = 0;
	int shstk = -1;

	put_note_sites(t, NULL, 0, &shstk, &v, &cnt, &cap, &ops, sems);
	/* the pid provider's, planned knowing where the notes' are */
	const struct pb_probe **pids;
	size_t npid = pid_probes(t, NULL, 0, &pids);
	if (npid) {
		uint64_t *notes = note_addrs(v, cnt, &nnotes);
		if (shstk < 0)
			shstk = pr_proc_shadow_stack(t->proc->pid);
		pb_pid_sites(pids, npid, notes, nnotes, shstk, t->o.pid_traps, &v, &cnt, &cap);
		free(notes);
	}
	free(pids);
	pr_proc_close_files(t->proc); /* (the modules' files: each opened once by the plans) */
	if (cnt) {
		off = put_table(a, v, cnt, &ops, &t->site_off);
		t->sites_tab = off;
		t->sites = udt__xcalloc(cnt, sizeof(*t->sites));
		for (size_t i = 0; i < cnt; i++)
			t->sites[i] = v[i].addr;
		t->site_cnt = cnt;
	}
	free(v);
	free(ops.v);
	return off;
}

uint32_t cs__sites_put_late(struct cs_trace *t, struct cs_area *a, const size_t *idx, size_t n,
			    size_t mod_from, struct cs_addrs *sems)
{
	const struct pb_probe **pids;
	size_t npid = pid_probes(t, idx, n, &pids), cnt = 0, cap = 0, nnotes;
	const struct udt_sites *old = t->sites_tab ? (const void *)(t->img.buf + t->sites_tab)
						   : NULL;
	struct udt_site *v = NULL;
	struct oplist ops = { 0 };
	uint32_t off = 0;
	int shstk = -1;

	/* the session's sites, but those of objects unloaded since (no module there, or one
	   mapped since: another object's bytes now); their operands as they were */
	for (size_t i = 0; old && i < old->cnt; i++) {
		const struct udt_site *s = (const void *)(t->img.buf + old->site_off + i * sizeof(*s));
		const struct pr_module *m = pr_proc_module_at(t->proc, s->addr);
		bool fresh = false;
		for (size_t k = mod_from; m && k < t->proc->mod_cnt && !fresh; k++)
			fresh = t->proc->mods[k] == m;
		if (!m || fresh)
			continue;
		UDT__PUSH(v, cnt, cap, *s);
		v[cnt - 1].status = 0;
	}
	for (uint32_t k = 0; old && k < old->arg_cnt; k++)
		UDT__PUSH(ops.v, ops.cnt, ops.cap, ((const struct udt_note_arg *)(const void *)(
						       t->img.buf + old->arg_off))[k]);
	size_t before = cnt;
	/* the notes' sites of the new probes (a library's with SystemTap notes alone) */
	put_note_sites(t, idx, n, &shstk, &v, &cnt, &cap, &ops, sems);
	if (npid) {
		uint64_t *notes = note_addrs(v, cnt, &nnotes);
		if (shstk < 0)
			shstk = pr_proc_shadow_stack(t->proc->pid);
		pb_pid_sites(pids, npid, notes, nnotes, shstk, t->o.pid_traps, &v, &cnt, &cap);
		free(notes);
	}
	pr_proc_close_files(t->proc);
	uint32_t site_off;
	if (cnt > before)
		off = put_table(a, v, cnt, &ops, &site_off);
	free(v);
	free(ops.v);
	free(pids);
	return off;
}

void cs__sites_adopt(struct cs_trace *t, uint32_t tab)
{
	const struct udt_sites *ss = (const void *)(t->img.buf + tab);
	const struct udt_site *v = (const void *)(t->img.buf + ss->site_off);

	free(t->sites);
	t->sites = udt__xcalloc(ss->cnt + 1, sizeof(*t->sites));
	for (uint32_t i = 0; i < ss->cnt; i++)
		t->sites[i] = v[i].addr;
	t->site_cnt = ss->cnt;
	t->site_off = ss->site_off;
	t->sites_tab = tab;
}

void cs__sites_arm_late(struct cs_trace *t, const uint64_t *old, size_t nold)
{
	char *why = NULL;

	if (cs__sync_runtime(t, &why)) {
		fflush(t->out);
		fprintf(stderr, "dtrace: pid %d: failed to enable the pid probes of the libraries "
			"it loaded: could not run code in it to patch them: %s\n",
			(int)t->proc->pid, why);
	} else {
		report_statuses(t, old, nold);
	}
	free(why);
}

int cs__sites_arm(struct cs_trace *t, char **ret_err)
{
	pid_t pid = t->proc->pid;
	char *why = NULL;
	int32_t e;

	uint32_t armed;

	if (!t->site_cnt)
		return 0;
	/* (a -c command has synced at its handshake, and may be gone already) */
	if (pr_proc_read(t->proc, CTL_FIELD(site_armed), &armed, sizeof(armed)))
		return 0;
	if (armed != t->session && cs__sync_runtime(t, &why) &&
	    !pr_proc_read(t->proc, CTL_FIELD(site_armed), &armed, sizeof(armed)) &&
	    armed != t->session) {
		*ret_err = udt__xasprintf("failed to enable the SystemTap probe sites of pid %d: "
					  "could not run code in it to patch them: %s", (int)pid, why);
		free(why);
		return -1;
	}
	free(why);
	e = (int32_t)cs__rd32(t, CTL_FIELD(site_errno));
	if (pr_proc_read(t->proc, CTL_FIELD(site_armed), &armed, sizeof(armed)))
		return 0; /* gone meanwhile */
	if (armed != t->session) {
		if (e == EDEADLK)
			*ret_err = udt__xasprintf("failed to enable the SystemTap probe sites of pid "
						  "%d: its thread %d blocks SIGTRAP, and the kernel "
						  "would kill it at a trap", (int)pid,
						  (int)cs__rd32(t, CTL_FIELD(site_tid)));
		else if (e > 0)
			*ret_err = udt__xasprintf("failed to enable the SystemTap probe sites of pid "
						  "%d: %s", (int)pid, strerror(e));
		else
			report_statuses(t, NULL, 0); /* none could be patched: each one's reason */
		return e > 0 ? -1 : 0;
	}
	if (cs__rd32(t, CTL_FIELD(site_cnt)) < t->site_cnt) {
		fflush(t->out);
		report_statuses(t, NULL, 0);
	}
	return 0;
}

/*
 * Put back the nop of every site of ours still holding an int3, through
 * /proc/PID/mem (process_vm_writev does not write read-only text), but
 * those another live session has (docs/runtime.md, "Several sessions").
 * One byte each: a thread sees the int3 or the nop, and the runtime's
 * handler runs a trap taken before the restore from the byte restored.
 */
static void restore_outside(struct cs_trace *t)
{
	struct udt_site *v = udt__xcalloc(t->site_cnt, sizeof(*v));
	uint64_t at = cs__area_addr(t) + t->site_off, *addr = udt__xcalloc(t->site_cnt + 1, 8);
	uint8_t *orig = udt__xcalloc(t->site_cnt + 1, 1);
	struct cs_addrs keep = { 0 };
	size_t n = 0;

	cs__live_sites(t, &keep);
	/* only those the runtime patched (an int3 on another one is another tracer's): the
	   nop, or the instruction's first byte */
	bool read = !pr_proc_read(t->proc, at, v, t->site_cnt * sizeof(*v));
	for (size_t i = 0; read && i < t->site_cnt; i++) {
		if (v[i].status == UDT_SITE_PATCHED && !cs__addrs_has(&keep, v[i].addr)) {
			addr[n] = v[i].addr;
			orig[n++] = v[i].kind == UDT_SITE_INSN ? v[i].bytes[0] : UDT_SITE_NOP;
		}
	}
	(void)pr_proc_put_back(t->proc, addr, orig, n, INT3);
	free(keep.v);
	free(addr);
	free(orig);
	free(v);
}

/*
 * Are the session's sites the runtime's no more, once it has synced? The
 * injected sync does nothing when it finds another sync under way: that of
 * a thread whose fire found the session over, which restores them all
 * itself (and may be the very thread the injection stopped, which goes on
 * once the call is done). Waited for, a bounded time, so that dtrace does
 * not exit while the text is still being put back.
 */
static bool sync_ended(struct cs_trace *t)
{
	const struct timespec ts = { 0, 10 * 1000 * 1000 };
	char *why = NULL;

	for (int i = 1; i <= 500 && !t->target_gone; i++) {
		if (cs__rd32(t, CTL_FIELD(site_armed)) != t->session)
			return true;
		nanosleep(&ts, NULL);
		/* (a sync that began before the session ended says it armed; ours, once that
		   one is done, restores) */
		if (i % 20 == 0) {
			(void)cs__sync_runtime(t, &why);
			free(why);
			why = NULL;
		}
	}
	return false;
}

void cs__sites_detach(struct cs_trace *t)
{
	char *why = NULL;

	if (!t->site_cnt || cs__rd32(t, CTL_FIELD(site_armed)) != t->session)
		return;
	/* the runtime restores them (and forgets them) when it syncs with the session over */
	if (cs__sync_runtime(t, &why) || !sync_ended(t))
		restore_outside(t);
	free(why);
}
