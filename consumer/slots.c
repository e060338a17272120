/* SPDX-License-Identifier: MIT */
/*
 * Several sessions on one process: the slots of the target's control block,
 * and the lock consumers take to change what sessions share
 * (docs/runtime.md, "Several sessions").
 *
 * The runtime's control block (udt__control, struct udt_ctlblock) has
 * UDT_SLOT_MAX slots, each one session's: its parameters, enablings, shared
 * memory and heartbeat. Their states are bytes of one word in the header,
 * which the probe path reads at every fire. A consumer takes a slot that is
 * not ACTIVE, or one whose consumer is gone (dead, or silent past its
 * deadman interval: it ends that session first, as the deadman would), and
 * gives its session a number one more than any slot's, so that numbers are
 * never reused in a process.
 *
 * What sessions share is counted or kept: each session adds one to a
 * probe's semaphore and takes one off at its end, never below zero (a read
 * and a write from outside: SystemTap's and bpftrace's users count on the
 * semaphore too); an object's dispatch pointer is cleared only when no
 * other ACTIVE session's undo lists hold it. Consumers do these
 * read-modify-writes one at a time under the process's attach lock
 * (proc/lock.c).
 *
 * Everything read here from the target (other sessions' states, heartbeats,
 * areas and lists) is bounded by what we chose: the slot count, the area's
 * size, a generation chain that only goes down.
 */
#include "consumer/internal.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define SLOT_ADDR(t, s) ((t)->ctlblk + offsetof(struct udt_ctlblock, slots) + \
			 (uint64_t)(s) * sizeof(struct udt_control))
#define GEN_MAX 4096 /* generations of an area followed, at most */

uint64_t cs__live_addr(const struct cs_trace *t)
{
	return t->ctlblk + offsetof(struct udt_ctlblock, hdr.live) + t->slot;
}

/* The address of area idx of slot s. */
static uint64_t area_addr(const struct cs_trace *t, uint32_t s, uint32_t idx)
{
	return t->ctlblk + offsetof(struct udt_ctlblock, areas) +
	       ((uint64_t)s * 2 + (idx & 1)) * UDT_AREA_SZ;
}

uint64_t cs__area_addr(const struct cs_trace *t)
{
	return area_addr(t, t->slot, t->area);
}

int cs__lock(struct cs_trace *t, char **ret_err)
{
	int fd;

	if (t->lock_depth++)
		return 0;
	fd = pr_attach_lock(t->proc->pid, ret_err);
	if (fd < 0) {
		t->lock_depth = 0;
		return fd;
	}
	t->lock_fd = fd;
	return 0;
}

void cs__unlock(struct cs_trace *t)
{
	if (!t->lock_depth || --t->lock_depth)
		return;
	pr_attach_unlock(t->lock_fd);
	t->lock_fd = -1;
}

/* What we read of the slots: their live bytes, and each one. */
struct slots {
	struct udt_ctlhdr hdr;
	struct udt_control c[UDT_SLOT_MAX];
};

static int read_slots(struct cs_trace *t, struct slots *s)
{
	int err = pr_proc_read(t->proc, t->ctlblk, &s->hdr, sizeof(s->hdr));

	return err ? err : pr_proc_read(t->proc, SLOT_ADDR(t, 0), s->c, sizeof(s->c));
}

/* Is slot i's session live: ACTIVE, its consumer running and heartbeating? */
static bool slot_live(const struct slots *s, uint32_t i)
{
	const struct udt_control *c = &s->c[i];

	return s->hdr.live[i] && c->consumer_pid > 0 &&
	       (kill(c->consumer_pid, 0) == 0 || errno == EPERM) &&
	       c->heartbeat_ns + c->deadman_ns > udt__now_ns();
}

/* The slot for a new session: a free one, else one whose consumer is gone; -1 none. */
static int pick(const struct slots *s)
{
	for (uint32_t i = 0; i < UDT_SLOT_MAX; i++)
		if (!s->hdr.live[i])
			return (int)i;
	for (uint32_t i = 0; i < UDT_SLOT_MAX; i++)
		if (!slot_live(s, i))
			return (int)i;
	return -1;
}

static char *full_err(struct cs_trace *t, const struct slots *s)
{
	char pids[UDT_SLOT_MAX * 16] = ""; /* (", -2147483648" each) */
	size_t n = 0;

	for (uint32_t i = 0; i < UDT_SLOT_MAX && n < sizeof(pids); i++)
		n += (size_t)snprintf(pids + n, sizeof(pids) - n, "%s%d", i ? ", " : "",
				      (int)s->c[i].consumer_pid);
	return udt__xasprintf("failed to grab pid %d: it is traced by %u dtrace sessions, the most "
			      "a process takes (theirs: pids %s)", (int)t->proc->pid, UDT_SLOT_MAX,
			      pids);
}

int cs__slot_check(struct cs_trace *t, char **ret_err)
{
	struct slots s;
	int err = read_slots(t, &s);

	if (err) {
		*ret_err = udt__xasprintf("failed to grab pid %d: %s", (int)t->proc->pid,
					  strerror(-err));
		return -1;
	}
	if (pick(&s) < 0) {
		*ret_err = full_err(t, &s);
		return -1;
	}
	return 0;
}

/* Add the n addresses of the list at off of the area at base to l (struck ones, 0, left out). */
static void read_list(struct cs_trace *t, uint64_t base, uint32_t off, uint32_t n,
		      struct cs_addrs *l)
{
	if (!l || off % 8 || off > UDT_AREA_SZ || n > (UDT_AREA_SZ - off) / 8)
		return;
	uint64_t *v = udt__xcalloc(n + 1, 8);
	if (!pr_proc_read(t->proc, base + off, v, (size_t)n * 8))
		for (uint32_t i = 0; i < n; i++)
			if (v[i])
				cs__addrs_add(l, v[i]);
	free(v);
}

/*
 * The undo lists of every generation of the enablings of slot slot (in its
 * area area_idx), as the target holds them: semaphores
 * into sems, dispatch pointers into disps (either may be NULL). Only what
 * lies in the area is read, and the generations' chain is followed only
 * down.
 */
static void read_lists(struct cs_trace *t, uint32_t slot, uint32_t area_idx,
		       struct cs_addrs *sems, struct cs_addrs *disps)
{
	uint64_t base = area_addr(t, slot, area_idx);
	struct udt_area_hdr h;
	struct udt_area_gen g;

	if (pr_proc_read(t->proc, base, &h, sizeof(h)) || h.size != sizeof(h))
		return;
	read_list(t, base, h.sem_off, h.sem_cnt, sems);
	read_list(t, base, h.disp_off, h.disp_cnt, disps);
	for (uint32_t off = h.gen_off, n = 0; off && n < GEN_MAX; n++, off = g.prev) {
		if (off < sizeof(h) || off % 8 || off > UDT_AREA_SZ - sizeof(g) ||
		    pr_proc_read(t->proc, base + off, &g, sizeof(g)) || g.size != sizeof(g) ||
		    g.prev >= off)
			break;
		read_list(t, base, g.sem_off, g.sem_cnt, sems);
		read_list(t, base, g.disp_off, g.disp_cnt, disps);
	}
}

/* The dispatch pointers the ACTIVE sessions' undo lists hold, into ret. */
static void active_disps(struct cs_trace *t, struct cs_addrs *ret)
{
	struct udt_ctlhdr hdr;

	if (pr_proc_read(t->proc, t->ctlblk, &hdr, sizeof(hdr)))
		return;
	for (uint32_t i = 0; i < UDT_SLOT_MAX; i++) {
		uint32_t area = 0;
		if (hdr.live[i] &&
		    !pr_proc_read(t->proc, SLOT_ADDR(t, i) + offsetof(struct udt_control, area),
				  &area, sizeof(area)))
			read_lists(t, i, area, NULL, ret);
	}
}

/*
 * The offset of the sites table of the area at base (header h), as the
 * runtime takes it (udt__area_sites_off()): the newest generation's that
 * has one, else the header's; 0 when a generation of the chain is bad.
 */
static uint32_t sites_tab(struct cs_trace *t, uint64_t base, const struct udt_area_hdr *h)
{
	struct udt_area_gen g;

	for (uint32_t off = h->gen_off; off; off = g.prev) {
		if (off % 8 || off > UDT_AREA_SZ - sizeof(g) ||
		    pr_proc_read(t->proc, base + off, &g, sizeof(g)) || g.size != sizeof(g) ||
		    g.prev >= off)
			return 0;
		if (g.sites_off)
			return g.sites_off;
	}
	return h->sites_off;
}

void cs__live_sites(struct cs_trace *t, struct cs_addrs *ret)
{
	struct udt_ctlhdr hdr;

	if (pr_proc_read(t->proc, t->ctlblk, &hdr, sizeof(hdr)))
		return;
	for (uint32_t i = 0; i < UDT_SLOT_MAX; i++) {
		uint32_t area = 0;
		struct udt_area_hdr h;
		struct udt_sites ss;
		if (!hdr.live[i] ||
		    pr_proc_read(t->proc, SLOT_ADDR(t, i) + offsetof(struct udt_control, area), &area,
				 sizeof(area)))
			continue;
		uint64_t base = area_addr(t, i, area);
		uint32_t tab;
		if (pr_proc_read(t->proc, base, &h, sizeof(h)) || h.size != sizeof(h) ||
		    !(tab = sites_tab(t, base, &h)) || tab % 8 || tab > UDT_AREA_SZ - sizeof(ss) ||
		    pr_proc_read(t->proc, base + tab, &ss, sizeof(ss)) ||
		    ss.size != sizeof(ss) || ss.cnt > UDT_SITES_MAX || ss.site_off % 8 ||
		    ss.site_off > UDT_AREA_SZ ||
		    ss.cnt > (UDT_AREA_SZ - ss.site_off) / sizeof(struct udt_site))
			continue;
		struct udt_site *v = udt__xcalloc(ss.cnt + 1, sizeof(*v));
		if (!pr_proc_read(t->proc, base + ss.site_off, v, ss.cnt * sizeof(*v)))
			for (uint32_t k = 0; k < ss.cnt; k++)
				cs__addrs_add(ret, v[k].addr);
		free(v);
	}
}

void cs__undo_lists(struct cs_trace *t, const uint64_t *sems, size_t nsem, const uint64_t *disps,
		    size_t ndisp)
{
	struct cs_addrs keep = { 0 };

	for (size_t i = 0; i < nsem; i++) {
		uint16_t v;
		/* never below zero: another tracer may have reset it */
		if (!sems[i] || pr_proc_read(t->proc, sems[i], &v, 2) || !v)
			continue;
		v--;
		(void)pr_proc_write(t->proc, sems[i], &v, 2);
	}
	if (ndisp)
		active_disps(t, &keep);
	for (size_t i = 0; i < ndisp; i++) {
		uint64_t zero = 0;
		if (disps[i] && !cs__addrs_has(&keep, disps[i]))
			(void)pr_proc_write(t->proc, disps[i], &zero, 8);
	}
	free(keep.v);
}

/*
 * End the session of slot i, whose consumer is gone, as its deadman would
 * have: not live, its state DEADMAN (its consumer, should it come back,
 * reads why in deadman_session), then its semaphores and dispatch pointers
 * undone.
 */
static int end_stale(struct cs_trace *t, uint32_t i, const struct udt_control *c)
{
	struct cs_addrs sems = { 0 }, disps = { 0 };
	uint8_t off = 0;
	uint32_t st = UDT_STATE_DEADMAN;
	int err = pr_proc_write(t->proc, t->ctlblk + offsetof(struct udt_ctlblock, hdr.live) + i,
				&off, 1) ?:
		  pr_proc_write(t->proc, SLOT_ADDR(t, i) + offsetof(struct udt_control, state), &st,
				sizeof(st)) ?:
		  pr_proc_write(t->proc, SLOT_ADDR(t, i) + offsetof(struct udt_control,
								    deadman_session),
				&c->session, sizeof(c->session));

	if (err)
		return err;
	read_lists(t, i, c->area, &sems, &disps);
	cs__undo_lists(t, sems.v, sems.cnt, disps.v, disps.cnt);
	free(sems.v);
	free(disps.v);
	return 0;
}

int cs__slot_take(struct cs_trace *t, char **ret_err)
{
	struct slots s;
	uint32_t max = 0;
	int err = read_slots(t, &s), i;

	if (err) {
		*ret_err = udt__xasprintf("failed to grab pid %d: %s", (int)t->proc->pid,
					  strerror(-err));
		return -1;
	}
	/* every session whose consumer is gone ends now, as its deadman would at the next fire:
	   its semaphores, dispatch pointers and SystemTap sites are not left for another's */
	for (uint32_t k = 0; k < UDT_SLOT_MAX; k++) {
		if (!s.hdr.live[k] || slot_live(&s, k))
			continue;
		if ((err = end_stale(t, k, &s.c[k]))) {
			*ret_err = udt__xasprintf("failed to grab pid %d: %s", (int)t->proc->pid,
						  strerror(-err));
			return -1;
		}
		s.hdr.live[k] = 0;
	}
	i = pick(&s);
	if (i < 0) {
		*ret_err = full_err(t, &s);
		return -1;
	}
	for (uint32_t k = 0; k < UDT_SLOT_MAX; k++)
		max = s.c[k].session > max ? s.c[k].session : max;
	t->slot = (uint32_t)i;
	t->ctl = SLOT_ADDR(t, i);
	t->session = max + 1 ? max + 1 : 1;
	t->area = (s.c[i].area + 1) & 1;
	return 0;
}
