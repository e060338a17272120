/* SPDX-License-Identifier: MIT */
/*
 * Reading the target's buffers, and what their records say handed to the
 * output (output.h): each action's value, printa(), drops, faults.
 *
 * Once the target has made the session's shared memory (at its first fire),
 * we map it through /proc/PID/fd/N (allowed as ptrace is) and acknowledge, so
 * the target can close its descriptor. Every round (switchrate):
 *
 * switch  flip each buffer's active half, a membarrier (cs__barrier_all())
 *         so that every thread's view of the flip and of its busy flag is
 *         settled (record.c explains the pairing), wait for producers still
 *         in the old half, read it, reset it. A buffer whose producer stays
 *         busy (descheduled mid-record) is left for the next round.
 * fill    read what was appended since the last round; stop when a buffer
 *         has filled (the target stopped tracing).
 * ring    nothing until the end, then each buffer oldest to newest.
 *
 * Records are consumed per buffer, or merged by timestamp with -x temporal.
 * The mapping outlives the target: when it exits or crashes, what it
 * recorded is still here to print.
 */
#include "consumer/internal.h"
#include "vm/spec.h"
#include "vm/subr.h"
#include "vm/vm_mem.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/membarrier.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* pacing (pace()): buffers being filled are looked at every 10 ms at most, idle ones down to
   once a switchrate (a second by default; or a quarter of the deadman, if less); a session
   without its memory yet, a few times a second at least */
#define PACE_MIN_NS 10000000ull
#define PACE_NOMEM_NS 250000000ull
/* a session of the pid provider looks at the mappings every 100 ms at least: the probes of a
   library loaded later are enabled that soon after its load (SystemTap notes' within the
   pace: a second when idle) */
#define PACE_LATE_NS 100000000ull

#define LOAD_ACQUIRE(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define STORE_RELEASE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)

uint64_t cs_trace_interval(const struct cs_trace *t)
{
	/* the heartbeat must beat well within the deadman interval */
	uint64_t iv = t->o.switchrate_ns;

	if (iv > t->o.deadman_ns / 4)
		iv = t->o.deadman_ns / 4;
	/* until the buffers are mapped, look often while the session is young (a target may
	   exit soon after its first fire, and waits for dtrace a moment only), then at an
	   eighth of its age, a few times a second at most */
	if (t->attached && !t->shm) {
		uint64_t age = udt__now_ns() - t->born_ns;
		uint64_t look = age < 1000000000ull ? 2000000ull : age / 8;

		iv = look < iv ? look : iv;
		iv = iv > PACE_NOMEM_NS ? PACE_NOMEM_NS : iv;
	}
	/* with them, as the buffers fill (pace()), and the aggregations' snapshots at aggrate */
	uint64_t pace = t->shm ? cs__pace(t) : UINT64_MAX;

	iv = pace < iv ? pace : iv;
	if (t->shm && t->aggvar_cnt && iv > t->o.aggrate_ns)
		iv = t->o.aggrate_ns;
	/* a lead without its waker (no thread could be had) is not woken: looked at as before */
	if (t->shm && !t->lead && !t->waker && iv > PACE_MIN_NS)
		iv = PACE_MIN_NS;
	/* a library loaded later tells nobody but its mappings, which a round looks at */
	if (iv > PACE_LATE_NS && cs__late_watching(t))
		iv = PACE_LATE_NS;
	/* (records waiting in a switch buffer: read when the switchrate says, not a pace later) */
	if (t->shm && t->pace_unread && t->sh.policy == UDT_POLICY_SWITCH) {
		uint64_t since = udt__now_ns() - t->last_switch;
		uint64_t due = since < t->o.switchrate_ns ? t->o.switchrate_ns - since : 0;

		iv = due < iv ? due : iv;
	}
	/* threads come and go: their buffers are given back sooner, for the next ones */
	if (t->shm && t->churning && iv > 1000000)
		iv = 1000000;
	/* and no later than the next tick-n probe, nor than the other processes need */
	uint64_t tick = cs__ticks_due_in(t), procs = cs__group_due_in(t);
	iv = tick < iv ? tick : iv;
	return procs < iv ? procs : iv;
}

uint64_t cs__pace(const struct cs_trace *t)
{
	uint64_t iv = t->pace_ns ? t->pace_ns : PACE_MIN_NS;

	/* busy speculations finished, and deleted dynamic variables cleaned, at cleanrate */
	if ((t->spec_used || cs__vars_dirty(t)) && iv > t->o.cleanrate_ns)
		iv = t->o.cleanrate_ns;
	return iv;
}

bool cs_trace_exited(const struct cs_trace *t)
{
	return t->exited;
}

int cs_trace_exit_status(const struct cs_trace *t)
{
	return t->exit_status;
}

/* -- Records ------------------------------------------------------------------------------------ */

/* The value of action a of a record (an integer, or a string in buf). */
static struct out_pfarg action_value(const struct cs_action *a, const struct out_rec *ri,
				    const uint8_t *data, char *buf, size_t bufsz)
{
	struct out_pfarg v = { .size = a->size ? a->size : 8, .is_float = a->is_float,
			      .is_unsigned = !a->is_signed && !a->is_float && !a->sym };

	if (a->kind == CS_ACT_TRACE_CONST && a->is_str) {
		v.s = a->cstr;
	} else if (a->kind == CS_ACT_TRACE_CONST) {
		v.v = (uint64_t)a->cval;
	} else if (a->kind == CS_ACT_TRACE_STR) {
		size_t n = a->size < bufsz ? a->size : bufsz - 1;
		memcpy(buf, data + a->off, n);
		buf[n] = '\0';
		v.s = buf;
	} else if (a->from_hdr) {
		v.v = ri->timestamp;
	} else {
		memcpy(&v.v, data + a->off, 8);
	}
	return v;
}

/* The values printf() (or system()) action k of e takes from a record, and their strings. */
struct pfvals {
	struct out_pfarg *args;
	char **bufs;
	size_t n;
};

static void pfvals_get(struct cs_trace *t, const struct cs_ecb *e, size_t k,
		       const struct out_rec *ri, const uint8_t *data, struct pfvals *ret)
{
	size_t n = e->acts[k].pf_nvals;

	ret->n = n;
	ret->args = udt__xcalloc(n + 1, sizeof(*ret->args));
	ret->bufs = udt__xcalloc(n + 1, sizeof(*ret->bufs));
	for (size_t i = 0; i < n && k + 1 + i < e->act_cnt; i++) {
		const struct cs_action *a = &e->acts[k + 1 + i];
		if (a->kind == CS_ACT_USTACK) {
			/* %k: the stack's text, as ustack() prints it */
			ret->bufs[i] = cs__stack_key_text(t, a, data);
			ret->args[i] = (struct out_pfarg){ .s = ret->bufs[i] };
			continue;
		}
		if (a->kind == CS_ACT_TRACE_STR)
			ret->bufs[i] = udt__xmalloc(a->size + 1);
		ret->args[i] = action_value(a, ri, data, ret->bufs[i], a->size + 1);
	}
}

static void pfvals_free(struct pfvals *pv)
{
	for (size_t i = 0; i < pv->n; i++)
		free(pv->bufs[i]);
	free(pv->bufs);
	free(pv->args);
}

/* printa() and the other actions on aggregations (action k of e), on fresh totals. */
static void agg_op(struct cs_trace *t, const struct cs_ecb *e, size_t k,
		   const struct out_rec *ri, const uint8_t *data)
{
	const struct cs_action *a = &e->acts[k];
	struct out_pfarg n = { 0 };

	/* (the totals of every process: the lead's) */
	if (!cs__lead(t)->agg_fresh) {
		cs__agg_snap(t, false);
		cs__lead(t)->agg_fresh = true;
	}
	if (a->pf_nvals && k + 1 < e->act_cnt)
		n = action_value(&e->acts[k + 1], ri, data, NULL, 0);
	switch (a->kind) {
	case CS_ACT_PRINTA:
		if (a->naggvars > 1)
			cs__agg_printa_joined(t, a->aggvars, a->naggvars, a->pf);
		else
			cs__agg_printa(t, a->aggvar, a->pf);
		break;
	case CS_ACT_CLEAR:
		cs__agg_clear(t, a->aggvar);
		break;
	case CS_ACT_TRUNC:
		cs__agg_trunc(t, a->aggvar, !a->pf_nvals, (int64_t)n.v);
		break;
	case CS_ACT_NORMALIZE:
		a->aggvar->normal = (int64_t)n.v > 0 ? (int64_t)n.v : 1;
		break;
	default: /* denormalize */
		a->aggvar->normal = 1;
		break;
	}
}

/* system() (action k of e): the command run by /bin/sh, after what was output before it. */
static void run_system(struct cs_trace *t, const struct cs_ecb *e, size_t k,
		       const struct out_rec *ri, const uint8_t *data)
{
	const struct out_printf *pf = e->acts[k].pf;
	char *cmd = NULL;
	size_t len = 0;
	struct pfvals pv;
	FILE *m = open_memstream(&cmd, &len);

	if (!m)
		return;
	pfvals_get(t, e, k, ri, data, &pv);
	out_printf_print(m, pf, pv.args, pv.n, pf->names_addrs ? cs__namer(t) : NULL);
	pfvals_free(&pv);
	if (fclose(m) == 0) {
		/* (as DTrace flushes first) */
		fflush(t->out);
		fflush(stdout);
		if (system(cmd) == -1)
			fprintf(stderr, "dtrace: failed to run system(\"%s\"): %s\n", cmd,
				strerror(errno));
	}
	free(cmd);
}

/* setopt() (action k of e): the option set when the record is read. */
static void set_option(struct cs_trace *t, const struct cs_ecb *e, size_t k,
		       const struct out_rec *ri, const uint8_t *data)
{
	const struct cs_action *a = &e->acts[k];
	char *v[2] = { NULL, NULL };

	for (size_t i = 0; i < a->pf_nvals && i < 2 && k + 1 + i < e->act_cnt; i++) {
		const struct cs_action *x = &e->acts[k + 1 + i];
		char *buf = udt__xmalloc(x->size + 1);
		struct out_pfarg s = action_value(x, ri, data, buf, x->size + 1);
		v[i] = udt__xstrdup(s.s ? s.s : "");
		free(buf);
	}
	cs__setopt(t, e, v[0] ? v[0] : "", v[1]);
	free(v[0]);
	free(v[1]);
}

/* print() action a of a record (data): its value, as its field (*ov) says, to the output. */
static void print_value(struct cs_trace *t, const struct cs_action *a, const uint8_t *data,
			struct out_val *ov)
{
	uint64_t v = (uint64_t)a->cval;

	if (a->kind == CS_ACT_TRACEMEM) {
		ov->bytes = data + a->off;
		ov->size = a->size;
	} else if (a->kind == CS_ACT_TRACE_CONST && a->is_str) {
		ov->s = a->cstr;
		ov->size = strlen(a->cstr);
	} else if (a->kind == CS_ACT_TRACE_STR) {
		ov->s = (const char *)data + a->off;
		ov->size = a->size;
	} else {
		if (a->kind != CS_ACT_TRACE_CONST)
			memcpy(&v, data + a->off, 8);
		ov->bytes = (const uint8_t *)&v;
		ov->size = 8;
	}
	out_value(cs__out(t), ov);
}

/*
 * One record of an ECB: each action's value handed to the output in the
 * clause's order, the actions done when their record is read (printa() and
 * the others on aggregations, system(), setopt(), exit()) done.
 */
static void consume_ecb_record(struct cs_trace *t, const struct cs_ecb *e,
			       const struct out_rec *ri, const uint8_t *data)
{
	struct out *o = cs__out(t);
	struct out_rec r = *ri;

	r.epid = e->epid;
	r.probe = cs__out_probe(e->probe);
	r.ecb = e->out;
	r.namer = cs__namer(t);
	out_record_begin(o, &r);
	for (size_t k = 0; k < e->act_cnt; k++) {
		const struct cs_action *a = &e->acts[k];
		struct out_val ov = { .f = a->field >= 0 ? &e->out->fields[a->field] : NULL };

		if (a->pf_value)
			continue; /* a value of the action before it */
		if (a->is_print) {
			print_value(t, a, data, &ov);
			continue;
		}
		switch (a->kind) {
		case CS_ACT_PRINTF: {
			struct pfvals pv;
			pfvals_get(t, e, k, ri, data, &pv);
			ov.args = pv.args;
			ov.nargs = pv.n;
			out_value(o, &ov);
			pfvals_free(&pv);
			break;
		}
		case CS_ACT_TRACEMEM:
			ov.bytes = data + a->off;
			ov.size = a->size;
			if (a->pf_nvals && k + 1 < e->act_cnt) {
				/* tracemem(addr, size, dynsize): dynsize bytes when fewer */
				int64_t dyn = (int64_t)action_value(&e->acts[k + 1], ri, data, NULL, 0).v;
				if (dyn > 0 && (uint64_t)dyn < ov.size)
					ov.size = (unsigned)dyn;
			}
			out_value(o, &ov);
			break;
		case CS_ACT_SYSTEM:
			run_system(t, e, k, ri, data);
			break;
		case CS_ACT_SETOPT:
			set_option(t, e, k, ri, data);
			break;
		case CS_ACT_USTACK:
			ov.bytes = data + a->off;
			ov.size = 8 * (uint64_t)a->nframes;
			out_value(o, &ov);
			break;
		case CS_ACT_TRACE_STR: {
			char buf[65536];
			size_t n = a->size < sizeof(buf) ? a->size : sizeof(buf) - 1;
			memcpy(buf, data + a->off, n);
			buf[n] = '\0';
			ov.s = buf;
			ov.bytes = data + a->off;
			ov.size = a->size;
			out_value(o, &ov);
			break;
		}
		case CS_ACT_TRACE:
		case CS_ACT_TRACE_CONST:
			if (a->kind == CS_ACT_TRACE_CONST && a->is_str) {
				ov.s = a->cstr;
				ov.size = t->o.strsize; /* (what DTrace records for it: -x rawbytes) */
			} else {
				ov.v = action_value(a, ri, data, NULL, 0).v;
			}
			out_value(o, &ov);
			break;
		case CS_ACT_PRINTA:
		case CS_ACT_CLEAR:
		case CS_ACT_TRUNC:
		case CS_ACT_NORMALIZE:
		case CS_ACT_DENORMALIZE:
			agg_op(t, e, k, ri, data);
			break;
		case CS_ACT_EXIT: {
			struct cs_trace *lead = cs__lead(t); /* (it ends the whole session) */
			uint64_t v;
			memcpy(&v, data + a->off, 8);
			lead->exited = true;
			lead->done = true;
			lead->exit_status = (int)v;
			break;
		}
		case CS_ACT_AGG:    /* in the aggregation tables */
		case CS_ACT_STMT:   /* done in the target */
		case CS_ACT_SPECULATE:
		case CS_ACT_COMMIT:
		case CS_ACT_DISCARD:
		case CS_ACT_RAISE:  /* done in the target */
		case CS_ACT_CHILL:
			break;
		}
	}
	out_record_end(o);
}

/*
 * Who a clause run here runs for: dtrace itself (BEGIN, END, tick-n: NULL),
 * or the thread a fault was in (ERROR): its arguments, and its context as
 * far as dtrace knows it.
 */
struct local_fire {
	const uint64_t *args;
	unsigned nargs;
	int32_t pid, tid;
	uint32_t cpu;
	uint64_t timestamp;
};

static void run_local(struct cs_trace *t, const char *which, const struct local_fire *lf);

/* DTrace's fault types (DTRACEFLT_*, the ERROR probe's arg4: provider-support/unistd.d). */
static uint64_t dtrace_fault(uint32_t fault)
{
	switch (fault) {
	case UDT_FAULT_BADADDR:
		return 1;          /* DTRACEFLT_BADADDR */
	case UDT_FAULT_DIVZERO:
		return 4;          /* DTRACEFLT_DIVZERO */
	case UDT_FAULT_NOSCRATCH:
		return 5;          /* DTRACEFLT_NOSCRATCH */
	case UDT_FAULT_ILLOP:
	case UDT_FAULT_ILLOP_ARG:
	case UDT_FAULT_BADARG:
	case UDT_FAULT_BADVAR:
		return 3;          /* DTRACEFLT_ILLOP */
	default:
		return 0;          /* DTRACEFLT_UNKNOWN */
	}
}

/*
 * A fault in action f->action (0: the predicate) of ECB f->ecb: the ERROR
 * probe (the DTrace Guide's dtrace provider) fires here, then the fault is
 * reported as DTrace always reports it. The probe's arg1 is the EPID, arg2
 * the action, arg3 the DIF offset (-1 where the message gives none), arg4
 * the fault type, arg5 the bad address; arg0, DTrace's kernel state, is 0.
 * (A fault in an ERROR clause fires nothing, and is not reported: DTrace
 * drops it silently.) The probe path pays nothing for it: the fault's record
 * is what the target writes anyway.
 */
static void fault(struct cs_trace *t, const struct cs_ecb *e, struct out_fault *f)
{
	if (e->probe->id == PB_PROBE_ERROR)
		return;
	f->epid = e->epid;
	f->probe = cs__out_probe(e->probe);
	/* (the ERROR clauses run in dtrace: the lead's) */
	if (cs__lead(t)->error_clauses) {
		const uint64_t args[6] = {
			0, f->epid, f->action,
			f->fault == UDT_FAULT_ILLOP_ARG ? UINT64_MAX : f->insn,
			dtrace_fault(f->fault), f->fault == UDT_FAULT_BADADDR ? f->addr : 0,
		};
		struct local_fire lf = { .args = args, .nargs = 6, .pid = f->where.pid,
					 .tid = f->where.tid, .cpu = f->where.cpu,
					 .timestamp = f->where.timestamp };
		run_local(cs__lead(t), "ERROR", &lf);
	}
	out_fault(cs__out(t), f);
}

/* Where record cr comes from. */
static struct out_rec rec_info(const struct cs_trace *t, const struct cs_rec *cr)
{
	return (struct out_rec){ .timestamp = cr->r->timestamp, .cpu = cr->r->cpu,
				 .pid = t->proc ? (int32_t)t->proc->pid : 0, .tid = cr->tid };
}

static void consume_record(struct cs_trace *t, const struct cs_rec *cr)
{
	const struct udt_rec *r = cr->r;

	if (r->epid == UDT_EPID_ERROR) {
		if (r->size < sizeof(*r) + sizeof(struct udt_err))
			return;
		const struct udt_err *err = (const struct udt_err *)(r + 1);
		if (!err->epid || err->epid > t->ecb_cnt || t->ecbs[err->epid - 1].local)
			return;
		struct out_fault f = { .action = err->action, .fault = err->fault,
				       .insn = err->insn, .addr = err->addr, .where = rec_info(t, cr) };
		fault(t, &t->ecbs[err->epid - 1], &f);
		return;
	}
	if (r->epid == UDT_EPID_COMMIT) {
		/* a commit the target left to us: its speculation's records go here */
		if (r->size >= sizeof(*r) + sizeof(struct udt_commit))
			cs__spec_commit_record(t, (const struct udt_commit *)(r + 1));
		return;
	}
	if (!r->epid || r->epid > t->ecb_cnt || t->ecbs[r->epid - 1].local)
		return;
	const struct cs_ecb *e = &t->ecbs[r->epid - 1];
	if (r->size < sizeof(*r) + e->rec_size)
		return;
	struct out_rec ri = rec_info(t, cr);
	consume_ecb_record(t, e, &ri, (const uint8_t *)(r + 1));
}

/*
 * Record r, a copy of ours of the target's (checked to hold its ECB's
 * rec_size bytes or not yet: checked here), made ready to read: its
 * timestamp, the runtime's clock reading, in ns (but for the records of
 * dtrace's own clauses, in a speculation: ns already); its strings zeroed
 * past their NUL: the target writes a string and its NUL only, leaving the
 * rest of its slot as the buffer held it (vm/vm_str.c,
 * udt__vm_str_out()).
 */
static void take_rec(struct cs_trace *t, struct udt_rec *r)
{
	bool known = r->epid && r->epid <= t->ecb_cnt;

	if (!known || !t->ecbs[r->epid - 1].local)
		r->timestamp = udt__clock_ns(&cs__lead(t)->cal, r->timestamp);
	if (!known)
		return;
	const struct cs_ecb *e = &t->ecbs[r->epid - 1];
	if (r->size < sizeof(*r) + e->rec_size)
		return;
	uint8_t *data = (uint8_t *)(r + 1);
	for (size_t k = 0; k < e->act_cnt; k++) {
		const struct cs_action *a = &e->acts[k];
		if (a->kind != CS_ACT_TRACE_STR || !a->size || a->off + a->size > e->rec_size)
			continue;
		uint8_t *z = memchr(data + a->off, 0, a->size);
		if (z)
			memset(z, 0, a->size - (size_t)(z - (data + a->off)));
	}
}

void cs__print_recs(struct cs_trace *t, const uint8_t *buf, uint64_t len)
{
	/* (a speculation's records, in the shared memory: read from a copy) */
	uint8_t *recs = len ? udt__xmalloc(len) : NULL;

	if (len)
		memcpy(recs, buf, len);
	for (uint64_t pos = 0; pos + sizeof(struct udt_rec) <= len;) {
		struct udt_rec *r = (struct udt_rec *)(void *)(recs + pos);

		if (r->size < sizeof(*r) || r->size % 8 || r->size > len - pos)
			break; /* not a record: stop rather than misread */
		pos += r->size;
		take_rec(t, r);
		if (r->epid && r->epid <= t->ecb_cnt && t->ecbs[r->epid - 1].local) {
			/* BEGIN's or END's: made here */
			const struct cs_ecb *e = &t->ecbs[r->epid - 1];
			struct out_rec ri = { .timestamp = r->timestamp, .cpu = r->cpu,
						 .pid = getpid(), .tid = (int32_t)syscall(SYS_gettid) };
			if (r->size >= sizeof(*r) + e->rec_size)
				consume_ecb_record(t, e, &ri, (const uint8_t *)(r + 1));
		} else if (r->epid != UDT_EPID_PAD && r->epid != UDT_EPID_COMMIT) {
			/* (a commit record belongs in a principal buffer: in a speculation it is
			   the target's doing, and would have one commit finish another) */
			consume_record(t, &(struct cs_rec){ r, 0 });
		}
	}
	free(recs);
}

/* -- BEGIN and END, run here --------------------------------------------------------------- */

/* A fault in a clause run here (action 0: the predicate). */
static void local_error(struct cs_trace *t, const struct cs_ecb *e, size_t action,
			const struct udt_vm_ctx *vm)
{
	struct out_fault f = { .action = (uint32_t)action, .fault = vm->fault,
			       .insn = vm->fault_insn, .addr = vm->fault_addr,
			       .where = { .timestamp = vm->timestamp, .cpu = vm->cpu,
					  .pid = vm->pid, .tid = vm->tid } };

	fault(t, e, &f);
}

/*
 * Run the clauses of probe `which` (BEGIN, END, ERROR or a tick-n probe)
 * here: with dtrace's pid and thread (or lf's, the fault's for ERROR),
 * self-> of its own, and the global variables the target shares once its
 * buffers are mapped (BEGIN's copy before).
 */
static void run_local(struct cs_trace *t, const char *which, const struct local_fire *lf)
{
	/* this-> lives for the whole of BEGIN (or END), self-> for dtrace's thread */
	uint64_t locals[UDT_MAX_LOCALS] = { 0 };
	size_t ntvars = dl_program_var_count(t->prog, DL_VAR_THREAD);
	size_t ngvars = dl_program_var_count(t->prog, DL_VAR_GLOBAL);

	t->agg_fresh = false;
	/* (a clause compiled since the last run may have declared more: they start at 0) */
	if (ntvars >= t->local_ntvars) {
		t->local_tvars = udt__xreallocarray(t->local_tvars, ntvars + 1, sizeof(uint64_t));
		memset(t->local_tvars + t->local_ntvars, 0,
		       (ntvars + 1 - t->local_ntvars) * sizeof(uint64_t));
		t->local_ntvars = ntvars + 1;
	}
	if (ngvars >= t->local_ngvars) {
		t->local_gvars = udt__xreallocarray(t->local_gvars, ngvars + 1, sizeof(uint64_t));
		memset(t->local_gvars + t->local_ngvars, 0,
		       (ngvars + 1 - t->local_ngvars) * sizeof(uint64_t));
		t->local_ngvars = ngvars + 1;
	}
	/* END sees the globals as the target left them (the shared memory outlives it) */
	uint64_t *gvars = t->local_gvars;
	/* (the copy of the header says where they are: checked when the memory was mapped) */
	bool shared = cs__shm_usable(t) && ngvars && t->sh.ngvars == ngvars;
	if (!strcmp(which, "END") && shared)
		memcpy(t->local_gvars, t->shm + t->sh.gvar_off, ngvars * 8);
	else if (strcmp(which, "BEGIN") && shared)
		gvars = (uint64_t *)(void *)(t->shm + t->sh.gvar_off); /* a tick: the live ones */
	/* strings, scratch, dynamic variables: one fire of the probe, its clauses share them */
	struct udt_vm_mem *mem = cs__vars_mem(t, strcmp(which, "BEGIN") != 0);
	/* after exit(), as in DTrace's draining state: END and ERROR run, nothing else does,
	   not even the rest of the clauses of the firing that called it */
	bool after_exit = !strcmp(which, "END") || !strcmp(which, "ERROR");
	for (size_t i = 0; i < t->ecb_cnt && !(t->exited && !after_exit); i++) {
		struct cs_ecb *e = &t->ecbs[i];
		/* (before the context, whose getpid() and the like a thousand pid probes' ECBs
		   would pay at every tick) */
		if (!e->local || strcmp(e->probe->name, which))
			continue;
		struct udt_vm_lwp lwp = { .filled = false };
		struct udt_vm_ctx vm = {
			.args = lf ? lf->args : NULL,
			.nargs = lf ? lf->nargs : 0,
			.timestamp = lf ? lf->timestamp : udt__now_ns(),
			.epid = e->epid,
			.cpu = lf ? lf->cpu : (uint32_t)(sched_getcpu() < 0 ? 0 : sched_getcpu()),
			.pid = lf ? lf->pid : getpid(),
			.tid = lf ? lf->tid : (int32_t)syscall(SYS_gettid),
			.tvars = t->local_tvars,
			.ntvars = (uint32_t)ntvars,
			.nlocals = (uint32_t)dl_program_var_count(t->prog, DL_VAR_LOCAL),
			.locals = locals,
			.gvars = gvars,
			.ngvars = (uint32_t)ngvars,
			.spec = t->spec_used ? cs__spec_table(t) : NULL,
			.rand = t->local_rand,
			.mem = mem,
			.lwp = &lwp,
		};
		uint64_t v;
		struct udt_spec_rec sr;
		bool speculating = false;
		int sig = 0;

		if (mem)
			mem->scratch_used = 0; /* each clause's, as in the target */
		if (e->has_pred) {
			if (e->pred.is_const) {
				v = (uint64_t)e->pred.const_val;
			} else if (udt_difo_run((const void *)e->pred.bytes, &vm, &v)) {
				local_error(t, e, 0, &vm);
				continue;
			}
			if (!v)
				continue;
		}
		uint8_t *data = udt__xcalloc(1, e->rec_size + 8); /* (after the predicate: freed below) */
		bool silent = e->act_cnt > 0;
		for (size_t k = 0; k < e->act_cnt; k++) {
			struct cs_action *a = &e->acts[k];
			int fault;
			silent &= cs_act_silent(a->kind);
			if (a->kind == CS_ACT_AGG) {
				fault = cs__agg_local(t, a->agg, &vm);
			} else if (a->kind == CS_ACT_TRACE_STR) {
				/* a string: a D string here, or of dtrace's own memory */
				fault = cs__vars_str(a, &vm, data + a->off);
				if (!fault)
					continue;
			} else if (a->kind == CS_ACT_TRACEMEM && a->is_object) {
				/* print() or trace() of a variable's bytes, here in dtrace's memory */
				uint64_t bad;
				fault = udt_difo_run((const void *)a->difo.bytes, &vm, &v) ||
					(mem && udt__vm_mem_in(mem, v, data + a->off, a->size, &bad));
				if (!fault)
					continue;
			} else if (a->kind == CS_ACT_TRACE_CONST || a->kind == CS_ACT_PRINTF ||
				   a->from_hdr || a->aggvar ||
				   a->kind == CS_ACT_SYSTEM || a->kind == CS_ACT_SETOPT ||
				   a->kind == CS_ACT_TRACEMEM || a->off + 8 > e->rec_size + 8) {
				/* (no process here: tracemem()'s bytes are empty) */
				continue;
			} else {
				v = (uint64_t)a->difo.const_val;
				fault = !a->difo.is_const &&
					udt_difo_run((const void *)a->difo.bytes, &vm, &v);
			}
			if (!fault && (a->kind == CS_ACT_SPECULATE || a->kind == CS_ACT_COMMIT ||
				       a->kind == CS_ACT_DISCARD)) {
				int rv = a->kind != CS_ACT_SPECULATE
						 ? cs__spec_end(t, vm.spec, v, a->kind == CS_ACT_COMMIT)
						 : udt__spec_reserve(vm.spec, v, (uint32_t)sizeof(struct udt_rec) +
								     e->rec_size, &sr);
				if (rv == UDT_SPEC_NONE && a->kind == CS_ACT_SPECULATE)
					goto next; /* no buffer: the rest of the clause is not run */
				speculating |= rv == UDT_SPEC_OK && a->kind == CS_ACT_SPECULATE;
				if (rv != UDT_SPEC_BADID)
					continue;
				fault = 1;
				vm.fault = UDT_FAULT_ILLOP_ARG;
				vm.fault_insn = 0;
			}
			if (!fault && a->kind == CS_ACT_CHILL) {
				/* chill() in dtrace's own clauses spins dtrace, within its budget */
				if (udt__chill(v, &t->chill_mark, &t->chilled))
					continue;
				fault = 1;
				vm.fault = UDT_FAULT_ILLOP_ARG;
				vm.fault_insn = 0;
			}
			if (!fault && a->kind == CS_ACT_RAISE) {
				/* raise() in BEGIN or END signals dtrace, whose context they run in */
				if (v < 65) {
					sig = (int)v;
					continue;
				}
				fault = 1;
				vm.fault = UDT_FAULT_ILLOP_ARG;
				vm.fault_insn = 0;
			}
			if (fault) {
				local_error(t, e, k + 1, &vm);
				if (speculating)
					udt__spec_publish(&sr, false);
				goto next;
			}
			if (!cs_act_silent(a->kind))
				memcpy(data + a->off, &v, 8);
		}
		if (speculating) {
			/* the record goes to its speculation, printed if it is committed */
			*sr.rec = (struct udt_rec){ .epid = e->epid, .timestamp = vm.timestamp,
						    .cpu = vm.cpu };
			memcpy(sr.rec + 1, data, e->rec_size);
			udt__spec_publish(&sr, true);
		} else if (!silent) {
			/* (a clause that records nothing prints nothing, as in the target) */
			struct out_rec ri = { .timestamp = vm.timestamp, .cpu = vm.cpu,
						 .pid = vm.pid, .tid = vm.tid };
			consume_ecb_record(t, e, &ri, data);
		}
		if (sig)
			raise(sig);
next:
		free(data);
	}
	cs__vars_report_local(t);
}

void cs__run_begin(struct cs_trace *t)
{
	run_local(t, "BEGIN", NULL);
}

void cs__run_probe(struct cs_trace *t, const char *name)
{
	run_local(t, name, NULL);
}

/* -- Buffers ------------------------------------------------------------------------------------ */

/*
 * A copy of bytes [from, to) of a buffer (of size bytes): what the records
 * are read from, so that each is checked and read where the target cannot
 * change it meanwhile. Kept until the round's records are printed.
 */
static uint8_t *copy_out(struct cs_trace *t, const uint8_t *buf, uint64_t from, uint64_t to,
			 uint64_t size)
{
	if (to > size)
		to = size;
	if (from >= to)
		return NULL;
	uint8_t *c = udt__xmalloc(to - from);
	memcpy(c, buf + from, to - from);
	UDT__PUSH(t->rec_copies, t->rec_copy_cnt, t->rec_copy_cap, c);
	return c;
}

/* Collect the records of len bytes (a copy), as written by thread tid. */
static void collect_recs(struct cs_trace *t, uint8_t *recs, uint64_t len, int32_t tid)
{
	for (uint64_t pos = 0; pos + sizeof(struct udt_rec) <= len;) {
		struct udt_rec *r = (struct udt_rec *)(void *)(recs + pos);

		if (r->size < sizeof(*r) || r->size % 8 || r->size > len - pos)
			break; /* not a record: stop rather than misread */
		if (r->epid != UDT_EPID_PAD) {
			take_rec(t, r);
			struct cs_rec cr = { r, tid };
			UDT__PUSH(t->recs, t->rec_cnt, t->rec_cap, cr);
		}
		pos += r->size;
	}
}

/* Collect the records of bytes [from, to) of a half. */
static void collect(struct cs_trace *t, const uint8_t *h, uint64_t from, uint64_t to,
		    uint64_t size, int32_t tid)
{
	uint8_t *c = copy_out(t, h, from, to, size);

	if (c)
		collect_recs(t, c, (to > size ? size : to) - from, tid);
}

static int cmp_ts(const void *a, const void *b)
{
	const struct cs_rec *x = a, *y = b;

	if (x->r->timestamp != y->r->timestamp)
		return x->r->timestamp < y->r->timestamp ? -1 : 1;
	return x->r < y->r ? -1 : x->r > y->r;
}

/*
 * -x temporal: how many of the round's records, sorted, may be printed now.
 * A record's timestamp is taken as its fire begins, before it has a place in
 * a buffer: a thread preempted in between writes it after a later record of
 * another thread, even into the next round's half. So a record is printed
 * only once its time is no later than the latest timestamp the rounds had
 * read TEMPORAL_HOLD_NS ago (dtrace's own clock): one stamped before that
 * has been written since, unless its thread was held for longer than that
 * between its timestamp and its reservation. The others wait for a later
 * round (the last round prints all).
 */
#define TEMPORAL_HOLD_NS 100000000ull

static size_t temporal_ready(struct cs_trace *t)
{
	uint64_t now = udt__now_ns(), horizon = 0;
	size_t k = 0;

	for (size_t i = 0; i < t->rec_cnt; i++)
		if (t->recs[i].r->timestamp > t->max_ts)
			t->max_ts = t->recs[i].r->timestamp;
	struct cs_tmark m = { now, t->max_ts };
	UDT__PUSH(t->tmarks, t->tmark_cnt, t->tmark_cap, m);
	/* the newest mark old enough; the ones before it are needed no more */
	while (k + 1 < t->tmark_cnt && t->tmarks[k + 1].at + TEMPORAL_HOLD_NS <= now)
		k++;
	if (t->tmarks[k].at + TEMPORAL_HOLD_NS <= now)
		horizon = t->tmarks[k].max_ts;
	memmove(t->tmarks, t->tmarks + k, (t->tmark_cnt - k) * sizeof(*t->tmarks));
	t->tmark_cnt -= k;
	size_t n = 0;
	while (n < t->rec_cnt && t->recs[n].r->timestamp <= horizon)
		n++;
	return n;
}

/* Print the records collected (final: all of them; else -x temporal holds some back). */
static void print_collected(struct cs_trace *t, bool final)
{
	size_t n = t->rec_cnt;

	cs__lead(t)->agg_fresh = false;
	if (t->o.temporal && t->rec_cnt > 1)
		qsort(t->recs, t->rec_cnt, sizeof(*t->recs), cmp_ts);
	if (t->o.temporal && !final)
		n = temporal_ready(t);
	for (size_t i = 0; i < n; i++)
		consume_record(t, &t->recs[i]);
	/* the records held back: a copy each, the round's copies freed */
	size_t held = t->rec_cnt - n;
	uint8_t **keep = held ? udt__xcalloc(held, sizeof(*keep)) : NULL;
	for (size_t i = 0; i < held; i++) {
		struct cs_rec *cr = &t->recs[n + i];
		keep[i] = udt__xmalloc(cr->r->size);
		memcpy(keep[i], cr->r, cr->r->size);
		t->recs[i] = (struct cs_rec){ (const struct udt_rec *)(void *)keep[i], cr->tid };
	}
	t->rec_cnt = held;
	for (size_t i = 0; i < t->rec_copy_cnt; i++)
		free(t->rec_copies[i]);
	t->rec_copy_cnt = 0;
	for (size_t i = 0; i < held; i++)
		UDT__PUSH(t->rec_copies, t->rec_copy_cnt, t->rec_copy_cap, keep[i]);
	free(keep);
	fflush(t->out);
}

static void report_drops(struct cs_trace *t, uint64_t n, int32_t tid)
{
	out_drop(cs__out(t), OUT_DROP_PRINCIPAL, tid, n);
}

#define LOST_NESTED "fired in a signal handler that interrupted a fire of the same thread"

/* The fires of buffer tb's thread nested in its own (said when it exits, and at the end). */
static void report_thread_lost(struct cs_trace *t, struct udt_tbuf *tb)
{
	char what[160];
	uint64_t n = __atomic_load_n(&tb->lost, __ATOMIC_RELAXED);

	if (!n)
		return;
	snprintf(what, sizeof(what), "lost on thread %d: " LOST_NESTED, (int)tb->tid);
	out_lost(cs__out(t), tb->tid, n, what);
}

bool cs__shm_expedited(const struct cs_trace *t)
{
	/* the target registered for the expedited one (runtime/session.c) */
	return t->shm && LOAD_ACQUIRE(&((const struct udt_shm_hdr *)(const void *)t->shm)->flags) &
				 UDT_SHM_MB_EXPEDITED;
}

void cs__barrier(bool expedited)
{
	/* (either is every process's: one serves all the processes of a session) */
	int cmd = expedited ? MEMBARRIER_CMD_GLOBAL_EXPEDITED : MEMBARRIER_CMD_GLOBAL;

	if (syscall(SYS_membarrier, cmd, 0, 0))
		__atomic_thread_fence(__ATOMIC_SEQ_CST); /* the producers fence (UDT_CTL_FENCE) */
}

void cs__barrier_all(struct cs_trace *t)
{
	cs__barrier(cs__shm_expedited(t));
}

bool cs__wait_not_busy(const uint32_t *busy, uint32_t h)
{
	for (int spin = 0; spin < 2000; spin++) {
		if (LOAD_ACQUIRE(busy) != h + 1)
			return true;
		if (spin > 100)
			sched_yield();
	}
	return LOAD_ACQUIRE(busy) != h + 1;
}

/* Wait (briefly) until the producer of buffer tb is out of half h. */
static bool wait_out_of(struct udt_tbuf *tb, uint32_t h)
{
	return cs__wait_not_busy(&tb->busy, h);
}

/* Read and reset the halves `which` of the buffers in a round of the switch policy. */
static void switch_round(struct cs_trace *t, bool final)
{
	uint64_t size = t->sh.bufsize;
	uint32_t n = cs__tbuf_count(t);
	uint32_t *which = udt__xcalloc(n + 1, sizeof(*which));
	bool *ok = udt__xcalloc(n + 1, sizeof(*ok));
	bool any = false;

	for (uint32_t i = 0; i < n; i++) {
		struct udt_tbuf *tb = cs__tbuf(t, i);
		uint32_t a = LOAD_ACQUIRE(&tb->active) & 1;

		if (t->pending[i]) {
			which[i] = a ^ 1; /* still the unread one */
		} else if (!final && !__atomic_load_n(&tb->off[a], __ATOMIC_RELAXED) &&
			   !__atomic_load_n(&tb->drops[a], __ATOMIC_RELAXED)) {
			which[i] = UINT32_MAX; /* nothing in it: no switch (an idle process pays none) */
			continue;
		} else {
			which[i] = a;
			STORE_RELEASE(&tb->active, a ^ 1);
		}
		any = true;
	}
	if (!any) {
		free(which);
		free(ok);
		return;
	}
	cs__barrier_all(t);
	for (uint32_t i = 0; i < n; i++) {
		struct udt_tbuf *tb = cs__tbuf(t, i);

		if (which[i] == UINT32_MAX)
			continue;
		ok[i] = wait_out_of(tb, which[i]);
		t->pending[i] = !ok[i];
		if (ok[i])
			collect(t, cs__half(t, i, which[i]), 0, LOAD_ACQUIRE(&tb->off[which[i]]),
				size, tb->tid);
	}
	print_collected(t, false);
	for (uint32_t i = 0; i < n; i++) {
		struct udt_tbuf *tb = cs__tbuf(t, i);
		if (!ok[i])
			continue;
		report_drops(t, tb->drops[which[i]], tb->tid);
		tb->drops[which[i]] = 0;
		STORE_RELEASE(&tb->off[which[i]], 0);
	}
	if (final) {
		/* the target writes no more: the other half, too */
		for (uint32_t i = 0; i < n; i++) {
			struct udt_tbuf *tb = cs__tbuf(t, i);
			uint32_t h = which[i] ^ 1;
			if (!wait_out_of(tb, h))
				continue;
			collect(t, cs__half(t, i, h), 0, LOAD_ACQUIRE(&tb->off[h]), size, tb->tid);
		}
		print_collected(t, true);
		for (uint32_t i = 0; i < n; i++) {
			struct udt_tbuf *tb = cs__tbuf(t, i);
			report_drops(t, tb->drops[which[i] ^ 1], tb->tid);
		}
	}
	free(which);
	free(ok);
}

static void fill_round(struct cs_trace *t, bool final)
{
	uint32_t n = cs__tbuf_count(t);

	for (uint32_t i = 0; i < n; i++) {
		struct udt_tbuf *tb = cs__tbuf(t, i);

		/* the last read: a thread that reserved its record before another's full
		   buffer stopped tracing commits it (its aggregations count it already) */
		if (final)
			(void)wait_out_of(tb, 0);
		uint64_t end = LOAD_ACQUIRE(&tb->off[0]);

		collect(t, cs__half(t, i, 0), t->fill_pos[i], end, t->sh.bufsize, tb->tid);
		t->fill_pos[i] = end;
	}
	print_collected(t, final);
	if (final)
		for (uint32_t i = 0; i < n; i++)
			report_drops(t, cs__tbuf(t, i)->drops[0], cs__tbuf(t, i)->tid);
	if (LOAD_ACQUIRE(&((struct udt_shm_hdr *)(void *)t->shm)->stopped))
		cs__lead(t)->done = true; /* (as DTrace's fill stops every CPU) */
}

/*
 * Collect the records of ring buffer i, oldest to newest: the bytes from its
 * tail to its head, copied (records never straddle the half's end, so the
 * two pieces join at a record). Those it made and no longer holds were
 * overwritten: counted.
 */
static void ring_collect(struct cs_trace *t, uint32_t i)
{
	struct udt_tbuf *tb = cs__tbuf(t, i);
	uint64_t B = t->sh.bufsize;
	uint64_t head = LOAD_ACQUIRE(&tb->off[0]), tail = LOAD_ACQUIRE(&tb->ring_tail);
	uint64_t made = __atomic_load_n(&tb->ring_recs, __ATOMIC_RELAXED), held = 0;

	if (head < tail || head - tail > B || tail % 8 || head == tail)
		return; /* (empty, or not a ring the runtime kept: records are 8-aligned) */
	uint64_t len = head - tail, at = tail % B, first = len < B - at ? len : B - at;
	uint8_t *c = udt__xmalloc(len);
	const uint8_t *h = cs__half(t, i, 0);

	memcpy(c, h + at, first);
	memcpy(c + first, h, len - first);
	UDT__PUSH(t->rec_copies, t->rec_copy_cnt, t->rec_copy_cap, c);
	for (uint64_t pos = 0; pos < len;) {
		struct udt_rec *r = (struct udt_rec *)(void *)(c + pos);

		/* a pad record may be as short as its size and epid (8 bytes) */
		if (len - pos < 8 || r->size < 8 || r->size % 8 || r->size > len - pos ||
		    (r->epid != UDT_EPID_PAD && (r->size < sizeof(*r) || len - pos < sizeof(*r))))
			break;
		if (r->epid != UDT_EPID_PAD) {
			take_rec(t, r);
			struct cs_rec cr = { r, tb->tid };
			UDT__PUSH(t->recs, t->rec_cnt, t->rec_cap, cr);
			held++;
		}
		pos += r->size;
	}
	/* (a commit copies several records in one: then fewer are counted made) */
	if (made > held)
		t->overwritten += made - held;
}

static void ring_final(struct cs_trace *t)
{
	uint32_t n = cs__tbuf_count(t);

	for (uint32_t i = 0; i < n; i++) {
		ring_collect(t, i);
		if (!t->o.temporal)
			print_collected(t, true);
	}
	print_collected(t, true);
}

/*
 * Threads that exited: what their buffers hold is read out (records, drops,
 * aggregations: nothing of theirs is lost), the buffers reset and given back
 * for new threads to take (udt_shm_hdr.free_head). Records are read by the
 * rounds as any thread's, so that -x temporal merges them with the others':
 * a buffer goes back once they have read it all (switch: both halves empty,
 * the one it wrote last flipped and read; fill: read to its end); meanwhile
 * t->churning makes the next round come soon, and switch. A ring's records
 * are copied now and printed at the end, with the other rings'.
 */
static void give_back(struct cs_trace *t)
{
	uint32_t n = cs__tbuf_count(t);
	struct udt_shm_hdr *sh = (struct udt_shm_hdr *)(void *)t->shm;
	bool waiting = false;

	for (uint32_t i = 0; i < n; i++) {
		struct udt_tbuf *tb = cs__tbuf(t, i);

		/* pairs with the runtime's release at the thread's exit */
		if (LOAD_ACQUIRE(&tb->state) != UDT_TBUF_EXITED)
			continue;
		if (t->sh.policy == UDT_POLICY_RING) {
			ring_collect(t, i);
		} else if (t->sh.policy == UDT_POLICY_FILL
				   ? LOAD_ACQUIRE(&tb->off[0]) != t->fill_pos[i]
				   : t->pending[i] || LOAD_ACQUIRE(&tb->off[0]) ||
					     LOAD_ACQUIRE(&tb->off[1])) {
			waiting = true; /* (records the next round reads) */
			continue;
		}
		report_drops(t, tb->drops[0] + tb->drops[1], tb->tid);
		report_thread_lost(t, tb);
		cs__agg_take_thread(t, i);
		tb->off[0] = tb->off[1] = 0;
		tb->drops[0] = tb->drops[1] = 0;
		tb->ring_tail = 0;
		tb->ring_recs = 0;
		tb->lost = 0;
		tb->errors = 0;
		tb->active = 0;
		t->pending[i] = false;
		t->fill_pos[i] = 0;
		__atomic_store_n(&tb->state, UDT_TBUF_FREE, __ATOMIC_RELAXED);
		/* pushed: the release makes its reset seen by the thread that pops it */
		uint64_t head = LOAD_ACQUIRE(&sh->free_head), nw;
		do {
			__atomic_store_n(&tb->next_free, (uint32_t)head, __ATOMIC_RELAXED);
			nw = ((head >> 32) + 1) << 32 | (i + 1);
		} while (!__atomic_compare_exchange_n(&sh->free_head, &head, nw, false,
						      __ATOMIC_RELEASE, __ATOMIC_ACQUIRE));
		waiting = true; /* (more may come: look again soon) */
	}
	t->churning = waiting;
}

/* The bytes not read yet of the fullest buffer (switch: its active half's; fill: those
   past what was read). */
static uint64_t unread(struct cs_trace *t)
{
	uint32_t n = cs__tbuf_count(t);
	uint64_t most = 0;

	for (uint32_t i = 0; i < n; i++) {
		struct udt_tbuf *tb = cs__tbuf(t, i);
		uint64_t u;

		if (t->sh.policy == UDT_POLICY_FILL)
			u = LOAD_ACQUIRE(&tb->off[0]) - t->fill_pos[i];
		else
			u = __atomic_load_n(&tb->off[LOAD_ACQUIRE(&tb->active) & 1], __ATOMIC_RELAXED);
		most = u > most ? u : most;
	}
	return most;
}

/*
 * Pacing: how soon the buffers need looking at again (cs_trace_interval()).
 * A session whose threads write nothing is looked at less and less often, up
 * to the switchrate (an idle session costs a wake-up a second: DTrace's
 * consumer wakes at its switchrate too); one whose buffers fill is looked at
 * before the fullest reaches half its size at the rate it filled since the
 * last round (switch: then it is switched), every PACE_MIN_NS at most.
 * unread_was is what this round found unread before reading, unread_now what
 * it left.
 */
static void pace(struct cs_trace *t, uint64_t unread_was, uint64_t unread_now, bool busy)
{
	uint64_t now = udt__now_ns(), iv = t->pace_ns ? t->pace_ns : PACE_MIN_NS;
	uint64_t since = now - t->pace_at, grown = unread_was - t->pace_unread;

	if (unread_was < t->pace_unread)
		grown = unread_was; /* (a buffer given back meanwhile, another taken) */
	if (busy || !t->pace_at) {
		iv = PACE_MIN_NS; /* (and the first round with the buffers: no rate known) */
	} else if (!grown) {
		iv *= 2; /* (cs_trace_interval() caps it) */
	} else {
		uint64_t room = t->sh.bufsize / 2 > unread_now ? t->sh.bufsize / 2 - unread_now : 0;
		/* half the time the fullest takes to fill the room at this rate */
		iv = (uint64_t)((unsigned __int128)since * room / grown / 2);
	}
	/* (at most the switchrate: cs_trace_interval() caps it further) */
	iv = iv > t->o.switchrate_ns ? t->o.switchrate_ns : iv;
	t->pace_ns = iv < PACE_MIN_NS ? PACE_MIN_NS : iv;
	t->pace_at = now;
	t->pace_unread = unread_now;
}

static void read_buffers(struct cs_trace *t, bool final)
{
	if (!cs__shm_usable(t))
		return;
	switch (t->sh.policy) {
	case UDT_POLICY_FILL: {
		uint64_t was = unread(t);

		fill_round(t, final);
		if (!final)
			pace(t, was, 0, t->churning);
		break;
	}
	case UDT_POLICY_RING:
		/* read at the end only; exit() says the end has come by stopping the recording
		   (DTrace's dtst_exiting: its exit record is in the ring, to be read then) */
		if (final)
			ring_final(t);
		else if (LOAD_ACQUIRE(&((struct udt_shm_hdr *)(void *)t->shm)->stopped))
			cs__lead(t)->done = true;
		if (!final)
			pace(t, 0, 0, t->churning);
		break;
	default: {
		/*
		 * Switch at switchrate, as DTrace does, and also as soon as a
		 * thread has filled half its active half: a busy thread (1M
		 * events/s is 40 MB/s) would otherwise drop most of a second.
		 */
		uint64_t now = udt__now_ns();
		uint64_t was = unread(t);
		/* a commit left to us is finished when its record is read: at cleanrate */
		bool clean = t->spec_used && now - t->last_switch >= t->o.cleanrate_ns &&
			     cs__spec_pending(t);
		if (final || now - t->last_switch >= t->o.switchrate_ns ||
		    was > t->sh.bufsize / 2 || clean || t->churning) {
			switch_round(t, final);
			t->last_switch = now;
		}
		if (!final)
			pace(t, was, unread(t), t->churning);
		break;
	}
	}
}

/* Say what counter *now says beyond *seen, as records what. */
static void report_count(struct cs_trace *t, uint64_t now, uint64_t *seen, const char *what)
{
	if (now > *seen) {
		out_lost(cs__out(t), 0, now - *seen, what);
		*seen = now;
	}
}

/* The fires the target could not record, by why (docs/runtime.md, "Threads"). */
static void report_lost(struct cs_trace *t, bool final)
{
	uint64_t early = 0;
	char what[128];

	/* counted in the shared memory, and before it existed in the control block */
	if (cs__shm_usable(t)) {
		struct udt_shm_hdr *h = (struct udt_shm_hdr *)(void *)t->shm;

		report_count(t, LOAD_ACQUIRE(&h->lost), &t->lost_reported, "lost: " LOST_NESTED);
		snprintf(what, sizeof(what), "lost: no thread buffer free (maxthreads=%u, held "
			 "by live threads and by exited ones not read yet)", t->sh.tbuf_max);
		report_count(t, LOAD_ACQUIRE(&h->lost_nobuf), &t->lost_nobuf_reported, what);
		report_count(t, LOAD_ACQUIRE(&h->lost_nomem), &t->lost_nomem_reported,
			     "lost: the memory of more thread buffers could not be made");
	}
	if (t->attached && !t->target_gone &&
	    !pr_proc_read(t->proc, t->ctl + offsetof(struct udt_control, lost), &early,
			  sizeof(early)))
		t->lost_early = early;
	report_count(t, t->lost_early, &t->lost_early_reported,
		     "lost: fired before the buffers could be made");
	/* buffers in a segment the process made and never saw mapped (it exited first, past
	   its wait for dtrace: runtime/session.c, udt_fini()): their records are not here */
	if (final && cs__shm_usable(t)) {
		uint32_t made = LOAD_ACQUIRE(&((struct udt_shm_hdr *)(void *)t->shm)->tbuf_cnt);

		if (made > t->sh.tbuf_max)
			made = t->sh.tbuf_max;
		if (made > t->tbuf_cap) {
			fflush(t->out);
			fprintf(stderr, "dtrace: the records of %u threads are lost: pid %d exited "
				"before dtrace could map their buffers\n", made - t->tbuf_cap,
				t->proc ? (int)t->proc->pid : 0);
		}
	}
	/* each thread's own, of those still there at the end (an exited one's said then) */
	for (uint32_t i = 0, n = final ? cs__tbuf_count(t) : 0; i < n; i++)
		report_thread_lost(t, cs__tbuf(t, i));
	if (final && t->overwritten) {
		out_lost(cs__out(t), 0, t->overwritten, "overwritten in ring buffers (the newest kept)");
		t->overwritten = 0;
	}
}

/* Did the runtime end the session (deadman, or enablings it refused)? */
static bool session_ended(struct cs_trace *t)
{
	struct udt_control c;

	if (!t->attached || t->target_gone)
		return false;
	if (pr_proc_read(t->proc, t->ctl, &c, sizeof(c)))
		return false;
	if (c.session != t->session) {
		/* another consumer took the slot of a session silent past its deadman */
		if (c.deadman_session == t->session) {
			fprintf(stderr, "dtrace: processing aborted: Abort due to systemic "
				"unresponsiveness\n");
			return true;
		}
		return false; /* (exec() replaced the image) */
	}
	if (c.bad_session == t->session) {
		fprintf(stderr, "dtrace: pid %d refused the enablings: ECB %u, instruction %u\n",
			(int)t->proc->pid, c.bad_ecb, c.bad_insn);
		return true;
	}
	if (c.state == UDT_STATE_DEADMAN) {
		fprintf(stderr, "dtrace: processing aborted: Abort due to systemic "
			"unresponsiveness\n");
		return true;
	}
	return false;
}

enum cs_work cs__work_proc(struct cs_trace *t, bool slow)
{
	if (slow)
		cs__heartbeat(t);
	if (cs_trace_map(t))
		return CS_WORK_ERROR;
	if (t->shm && !cs__shm_check(t))
		return CS_WORK_ERROR; /* (said why) */
	cs__shm_segments(t);
	if (slow)
		cs__late_poll(t); /* the probes of libraries loaded since */
	read_buffers(t, false);
	if (cs__shm_usable(t))
		give_back(t);
	cs__spec_clean(t, false);
	cs__spec_report(t);
	if (!t->lead)
		cs__ticks_run(t); /* the tick-n probes due (after the records made before them) */
	cs__vars_work(t, false);
	if (slow)
		report_lost(t, false);
	if (slow && session_ended(t)) {
		t->attached = false;
		return CS_WORK_ERROR;
	}
	return CS_WORK_MORE;
}

enum cs_work cs_trace_work(struct cs_trace *t)
{
	/* (woken by the system's process events only: they are the group's) */
	if (!t->round_now && udt__now_ns() < t->round_due) {
		cs__group_work(t);
		/* (what the members printed: as after a round, below) */
		if (fflush(t->out) == EOF)
			return CS_WORK_ERROR;
		return t->done ? CS_WORK_DONE : CS_WORK_MORE;
	}
	t->round_ran = true;
	if (cs__work_proc(t, true) == CS_WORK_ERROR)
		return CS_WORK_ERROR;
	/* the other processes: found, forked, gone, and each one's round */
	cs__group_work(t);
	/* the threads' tables are taken at aggrate, so that they hold one interval's keys */
	if (t->aggvar_cnt && udt__now_ns() - cs__agg_last_snap(t) >= t->o.aggrate_ns)
		cs__agg_snap(t, false);
	/* what the round printed (BEGIN's, the ticks', the records') reaches -o's file or a
	   pipe now, as DTrace flushes after each round; a reader gone (EPIPE, SIGPIPE being
	   ignored) or a full disk ends the trace, the target detached as at any end */
	if (fflush(t->out) == EOF) {
		if (errno != EPIPE)
			fprintf(stderr, "dtrace: failed to write the output: %s\n", strerror(errno));
		return CS_WORK_ERROR;
	}
	return t->done ? CS_WORK_DONE : CS_WORK_MORE;
}

void cs_trace_target_gone(struct cs_trace *t)
{
	t->target_gone = true;
	if (!t->shm || !cs__shm_check(t))
		return;
	if (t->sh.policy == UDT_POLICY_SWITCH)
		switch_round(t, false);
	else if (t->sh.policy == UDT_POLICY_FILL)
		fill_round(t, false);
}

/*
 * A session of profile-n probes that took no sample prints nothing: say so,
 * and why (the provider samples CPU time: an idle process gets none). For
 * -p's or -c's process only: of every process a description found, the idle
 * are many.
 */
static void report_unsampled(struct cs_trace *t)
{
	const struct pb_probe *prof = NULL;

	for (size_t i = 0; i < t->ecb_cnt && !prof; i++)
		if (!t->ecbs[i].local && t->ecbs[i].probe->prof_kind == UDT_PROF_PROFILE)
			prof = t->ecbs[i].probe;
	if (!prof || !t->prof_armed || cs__lead(t) != t || (cs__shm_usable(t) &&
		LOAD_ACQUIRE(&((struct udt_shm_hdr *)(void *)t->shm)->prof_samples)))
		return;
	fflush(t->out);
	fprintf(stderr, "dtrace: %s took no sample of pid %d: the profile provider samples the "
		"CPU time a process uses, and it used none while traced (docs/profile.md)\n",
		prof->name, (int)t->proc->pid);
}

/*
 * A session that enabled a language runtime's probe that fires only when the
 * runtime is asked to, in which nothing fired (no thread ever took a buffer):
 * say what the runtime needs (the first such probe's).
 */
static void report_runtime_hint(struct cs_trace *t)
{
	if (!t->proc || (cs__shm_usable(t) &&
			 LOAD_ACQUIRE(&((struct udt_shm_hdr *)(void *)t->shm)->tbuf_cnt)))
		return;
	for (size_t i = 0; i < t->ecb_cnt; i++) {
		const struct pb_probe *pr = t->ecbs[i].probe;
		const char *h;
		if (!t->ecbs[i].local && (h = pb_runtime_hint(pr))) {
			fflush(t->out);
			fprintf(stderr, "dtrace: %s:::%s never fired in pid %d: %s\n", pr->prov,
				pr->name, (int)t->proc->pid, h);
			return;
		}
	}
}

/* The last read of t's process: detached, its buffers read to the end. */
static void read_last(struct cs_trace *t)
{
	if (!t->target_gone) {
		(void)cs_trace_map(t);
		cs__shm_segments(t);
	}
	cs__detach(t);
	if (!t->target_gone)
		cs__shm_segments(t); /* (made by fires that began before the detach) */
	if (t->shm)
		(void)cs__shm_check(t);
	read_buffers(t, true);
	report_lost(t, true);
	report_unsampled(t);
	report_runtime_hint(t);
	cs__spec_clean(t, true);
	cs__vars_work(t, true);
}

void cs__finish_proc(struct cs_trace *t)
{
	read_last(t);
	cs__spec_report(t);
	cs__agg_snap_one(t, true);
	fflush(t->out);
	cs__shm_unmap(t);
}

int cs_trace_stop(struct cs_trace *t)
{
	/* the other processes first: END runs once all of them are read */
	bool member_bad = cs__group_stop(t);

	read_last(t);
	cs__agg_snap(t, true);
	run_local(t, "END", NULL);
	cs__spec_report(t);
	out_end_records(cs__out(t));
	cs__agg_snap(t, false); /* (what END aggregated) */
	cs__agg_print_all(t);
	cs__out_declare(t);
	out_finish(cs__out(t));
	fflush(t->out);
	cs__shm_unmap(t);
	/* (what a process corrupted was said; what could be read was printed) */
	return ferror(t->out) || t->shm_bad || member_bad ? -1 : 0;
}
