/* SPDX-License-Identifier: MIT */
/*
 * The probe path: udt__fire(), where an enabled probe site lands.
 *
 * The consumer stores udt__fire's address in the udt__dispatch pointer of
 * every object whose probes it enables (docs/format.md §1). A fire then:
 *
 *  1. leaves at once unless a session is active, and never recurses (a probe
 *     fired from a signal handler that interrupted this thread in here is
 *     counted as lost);
 *  2. checks the deadman (the fire's clock reading against the consumer's deadline);
 *  3. verifies the session's enablings once (every DIFO through
 *     udt_difo_verify(), every offset against the area);
 *  4. finds the ECBs of the probe by its semaphore address (a hash in the
 *     area), and for each: the site filter, the predicate, then a record of
 *     the actions' values in this thread's buffer (record.c);
 *  5. on a fault (a bad address, a division by zero) abandons the record and
 *     writes an error record instead: the consumer reports it, DTrace-style.
 *
 * Async-signal-safe: no locks, no allocation, no stdio; errno is saved and
 * restored. The clock is the TSC (or the vDSO's clock_gettime where the
 * consumer did not calibrate it) and the CPU rseq's cpu_id (or the vDSO's
 * getcpu); the only system calls are gettid once per thread, the memfd and
 * mmap of the session's first fire, and those of loads from application
 * memory (safe.c: three checks per fire that loads, or a process_vm_readv per
 * load where direct loads are not possible).
 */
#include "vm/agg.h"
#include "runtime/area.h"
#include "runtime/record.h"
#include "vm/safe.h"
#include "vm/subr.h"
#include "runtime/vars.h"

#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static bool in_area(uint64_t off, uint64_t len)
{
	return off <= UDT_AREA_SZ && len <= UDT_AREA_SZ - off;
}

/* A DIFO at offset off of area: checked header and extent, then the verifier. */
static int check_difo(const uint8_t *area, uint32_t off, uint32_t *ret_insn)
{
	const struct udt_difo *d;
	uint64_t sz;

	*ret_insn = 0;
	if (off % 8 || !in_area(off, sizeof(*d)))
		return -EINVAL;
	d = (const void *)(area + off);
	sz = (uint64_t)d->size + (uint64_t)d->insn_cnt * sizeof(struct udt_insn) +
	     (uint64_t)d->const_cnt * 8 + d->str_sz;
	if (!in_area(off, sz))
		return -EINVAL;
	return udt_difo_verify(d, (size_t)sz, ret_insn);
}

/* speculate(), commit(), discard(): a DIFO gives the speculation's ID; nothing recorded. */
static bool is_spec_action(uint32_t kind)
{
	return kind == UDT_ACT_SPECULATE || kind == UDT_ACT_COMMIT || kind == UDT_ACT_DISCARD;
}

/* An action that records (or is an aggregation's key or value) into rec_size bytes. */
static int check_action(const uint8_t *area, const struct udt_action *act, uint32_t rec_size,
			uint32_t *insn)
{
	uint32_t kind = act->kind;
	bool difo = kind == UDT_ACT_TRACE || kind == UDT_ACT_EXIT || kind == UDT_ACT_DIFO ||
		    kind == UDT_ACT_TRACE_STR;

	if (is_spec_action(kind) || kind == UDT_ACT_RAISE || kind == UDT_ACT_CHILL)
		return act->size || !act->src || check_difo(area, act->src, insn) ? -EINVAL : 0;
	if (kind == UDT_ACT_TRACEMEM)
		return !act->size || !act->src || check_difo(area, act->src, insn) ||
		       (uint64_t)act->off + act->size > rec_size ? -EINVAL : 0;
	if (kind == UDT_ACT_USTACK) /* src frames of 8 bytes */
		return !act->src || act->src > UDT_USTACK_MAX || act->size != act->src * 8 ||
		       (uint64_t)act->off + act->size > rec_size ? -EINVAL : 0;
	if ((kind < UDT_ACT_TRACE || kind > UDT_ACT_TRACE_VAR) && kind != UDT_ACT_TRACE_ARGSTR)
		return -EINVAL;
	if (difo && act->src && check_difo(area, act->src, insn))
		return -EINVAL;
	if (((kind == UDT_ACT_TRACE_ARG || kind == UDT_ACT_TRACE_ARGSTR) &&
	     act->src >= UDT_DIFO_MAX_ARGS) ||
	    (kind == UDT_ACT_TRACE_VAR && act->src >= UDT_VAR_CNT))
		return -EINVAL;
	if ((uint64_t)act->off + act->size > rec_size)
		return -EINVAL;
	if (kind != UDT_ACT_TRACE_STR && kind != UDT_ACT_TRACE_ARGSTR && kind != UDT_ACT_DIFO &&
	    act->size != 8)
		return -EINVAL;
	return 0;
}

/* An action that gives an 8-byte value (an aggregation's value, or its increment). */
static bool is_value(const struct udt_action *a)
{
	return a->kind == UDT_ACT_TRACE || a->kind == UDT_ACT_TRACE_ARG ||
	       a->kind == UDT_ACT_TRACE_VAR;
}

/* An aggregating action's descriptor: its extent, function, key and value. */
static int check_aggdesc(const uint8_t *area, const struct udt_action *act, uint32_t *insn)
{
	const struct udt_aggdesc *ad = (const void *)(area + act->src);

	if (act->size || act->src % 8 || !in_area(act->src, sizeof(*ad)) || ad->size != sizeof(*ad))
		return -EINVAL;
	if (!udt_agg_valsize(ad->func, ad->lq_levels) || !ad->aggid ||
	    ad->key_size > UDT_AGG_KEY_MAX || ad->key_size % 8 || ad->key_off % 8 ||
	    !in_area(ad->key_off, (uint64_t)ad->key_cnt * sizeof(struct udt_action)))
		return -EINVAL;
	if (ad->func == UDT_AGG_LQUANTIZE &&
	    (!ad->lq_step || !ad->lq_levels || ad->lq_levels > UDT_LQUANTIZE_MAX_LEVELS))
		return -EINVAL;
	/* llquantize: DTrace's constraints, and exactly the buckets they make */
	if (ad->func == UDT_AGG_LLQUANTIZE &&
	    (!udt_llquantize_ok(ad->llq_factor, ad->llq_low, ad->llq_high, ad->llq_nsteps) ||
	     ad->lq_levels != udt_llquantize_bucket(ad->llq_factor, ad->llq_low, ad->llq_high,
						    ad->llq_nsteps, INT64_MAX) + 1))
		return -EINVAL;
	const struct udt_action *key = (const void *)(area + ad->key_off);
	for (uint32_t k = 0; k < ad->key_cnt; k++)
		if (key[k].off % 8 || key[k].kind == UDT_ACT_EXIT || key[k].kind == UDT_ACT_DIFO ||
		    is_spec_action(key[k].kind) || key[k].kind == UDT_ACT_RAISE ||
		    key[k].kind == UDT_ACT_CHILL ||
		    key[k].kind == UDT_ACT_TRACEMEM || check_action(area, &key[k], ad->key_size, insn))
			return -EINVAL;
	if (ad->func == UDT_AGG_COUNT)
		return ad->val.kind || ad->incr.kind ? -EINVAL : 0;
	if (!is_value(&ad->val) || check_action(area, &ad->val, 8, insn))
		return -EINVAL;
	if (!ad->incr.kind)
		return 0;
	if (ad->func != UDT_AGG_QUANTIZE && ad->func != UDT_AGG_LQUANTIZE &&
	    ad->func != UDT_AGG_LLQUANTIZE)
		return -EINVAL;
	return is_value(&ad->incr) ? check_action(area, &ad->incr, 8, insn) : -EINVAL;
}

/*
 * The ECBs of one generation (ecb_cnt of them at ecb_off, and their hash):
 * each one's extent, chain, predicate and actions. The index of one that
 * fails goes to *ret_i (and the instruction to *ret_insn).
 */
static int verify_ecbs(const uint8_t *a, uint32_t ecb_off, uint32_t ecb_cnt, uint32_t hash_off,
		       uint32_t hash_bits, uint32_t *ret_i, uint32_t *ret_insn)
{
	uint32_t i = 0;

	*ret_i = 0;
	if (hash_bits > 20 || !in_area(ecb_off, (uint64_t)ecb_cnt * sizeof(struct udt_ecb)) ||
	    !in_area(hash_off, (uint64_t)4 << hash_bits) || ecb_off % 8 || hash_off % 4)
		return -EINVAL;
	const struct udt_ecb *ecbs = (const void *)(a + ecb_off);
	const uint32_t *hash = (const void *)(a + hash_off);
	for (i = 0; i < (1u << hash_bits); i++)
		if (hash[i] > ecb_cnt)
			return -EINVAL;
	for (i = 0; i < ecb_cnt; i++) {
		const struct udt_ecb *e = &ecbs[i];

		*ret_i = i;
		/* chains only go forward, so they end */
		if (e->size != sizeof(*e) || e->next > ecb_cnt || (e->next && e->next <= i + 1) ||
		    e->rec_size > (1u << 20) || e->rec_size % 8 || e->act_off % 8 ||
		    !in_area(e->act_off, (uint64_t)e->act_cnt * sizeof(struct udt_action)))
			return -EINVAL;
		if (e->pred && check_difo(a, e->pred, ret_insn))
			return -EINVAL;
		const struct udt_action *act = (const void *)(a + e->act_off);
		bool silent = true, commits = false;
		uint32_t speculates = 0, before = 0; /* records before the speculate() */
		for (uint32_t k = 0; k < e->act_cnt; k++) {
			uint32_t kind = act[k].kind;
			if (kind == UDT_ACT_AGG) {
				if (check_aggdesc(a, &act[k], ret_insn))
					return -EINVAL;
				continue;
			}
			speculates += kind == UDT_ACT_SPECULATE;
			commits |= kind == UDT_ACT_COMMIT;
			/* records nothing */
			bool quiet = kind == UDT_ACT_DIFO || kind == UDT_ACT_RAISE || kind == UDT_ACT_CHILL;
			silent &= quiet || kind == UDT_ACT_COMMIT || kind == UDT_ACT_DISCARD;
			before += !speculates && !quiet && !is_spec_action(kind);
			if (check_action(a, &act[k], e->rec_size, ret_insn))
				return -EINVAL;
		}
		/* a speculative ECB records into its speculation only (nothing before the
		   speculate()); a commit copies into the principal buffer, so it is only in an
		   ECB that holds no principal record of its own */
		bool spec = e->flags & UDT_ECB_SPEC;
		if ((e->flags & ~(UDT_ECB_DIRECT | UDT_ECB_DIRECT_STR | UDT_ECB_NOREC | UDT_ECB_SPEC |
				  UDT_ECB_LIGHTPRED | UDT_ECB_ARGS | UDT_ECB_DIRECT_AGG)) ||
		    ((e->flags & UDT_ECB_LIGHTPRED) &&
		     (!e->pred || !udt_difo_is_light((const void *)(a + e->pred)))) ||
		    ((e->flags & UDT_ECB_DIRECT) && !udt_ecb_is_direct(e, act)) ||
		    ((e->flags & UDT_ECB_DIRECT_STR) && !udt_ecb_is_direct_str(e, act)) ||
		    ((e->flags & UDT_ECB_ARGS) &&
		     (!(e->flags & UDT_ECB_DIRECT) || !udt_ecb_is_args(e, act))) ||
		    ((e->flags & UDT_ECB_DIRECT_AGG) && !udt_ecb_is_direct_agg(e, act, a)) ||
		    ((e->flags & UDT_ECB_NOREC) && (!silent || e->rec_size || spec)) ||
		    (spec != (speculates > 0)) || speculates > 1 || (spec && before) ||
		    (commits && !spec && !(e->flags & UDT_ECB_NOREC)))
			return -EINVAL;
	}
	return 0;
}

/* Once per session: out of the probe path's way. */
static __attribute__((noinline, cold)) int verify_area(struct udt_control *c, uint32_t slot,
							       uint32_t area)
{
	const uint8_t *a = udt__area_at(slot, area);
	const struct udt_area_hdr *ah = (const void *)a;
	uint32_t insn = 0, i = 0;
	bool bad_vars;

	(void)udt__vars_of(a, &bad_vars); /* (strings, scratch, dynamic variables: vars.c) */
	if (ah->size != sizeof(*ah) || ah->nlocals > UDT_MAX_LOCALS ||
	    ah->ngvars > UDT_MAX_GVARS || ah->gvar_off % 8 ||
	    !in_area(ah->gvar_off, (uint64_t)ah->ngvars * 8) ||
	    !in_area(ah->sem_off, (uint64_t)ah->sem_cnt * 8) ||
	    !in_area(ah->disp_off, (uint64_t)ah->disp_cnt * 8) || bad_vars ||
	    verify_ecbs(a, ah->ecb_off, ah->ecb_cnt, ah->hash_off, ah->hash_bits, &i, &insn))
		goto bad;
	return 0;
bad:
	STORE_RELAXED(&c->bad_ecb, i);
	STORE_RELAXED(&c->bad_insn, insn);
	return -EINVAL;
}

/*
 * The later generations of a session (abi.h, struct udt_area_gen), from the
 * newest down to the newest verified before (stop; 0: none), each once, as
 * generation 0 is: on the probe path's miss, out of its way.
 */
static __attribute__((noinline, cold)) int verify_gens(struct udt_control *c, uint32_t area,
						       uint32_t newest, uint32_t stop)
{
	const uint8_t *a = udt__area(c, area);
	uint32_t insn = 0, i = 0;

	for (uint32_t off = newest; off > stop;) {
		const struct udt_area_gen *g = udt__area_gen(a, off);

		if (!g || !in_area(g->sem_off, (uint64_t)g->sem_cnt * 8) ||
		    !in_area(g->disp_off, (uint64_t)g->disp_cnt * 8) ||
		    verify_ecbs(a, g->ecb_off, g->ecb_cnt, g->hash_off, g->hash_bits, &i, &insn)) {
			STORE_RELAXED(&c->bad_ecb, i);
			STORE_RELAXED(&c->bad_insn, insn);
			return -EINVAL;
		}
		off = g->prev;
	}
	return 0;
}

/* What one fire knows, for the ECBs of its probe in one session. */
struct fire {
	struct udt_tslot *ts;     /* the thread's state in the session: */
	struct udt_shm_hdr *shm;  /* its shared memory */
	struct udt_tbuf *tb;      /* and its buffer there */
	const uint8_t *area;
	const uint64_t *args;     /* the native arguments */
	unsigned nargs;
	uint32_t cpu;
	uint64_t now;             /* the clock's reading (udt__clock()) */
	const struct udt_control *ctl; /* the slot's: its clock's calibration */
	int32_t pid, tid;
	int err;                  /* the application's errno */
	uint8_t *agg;             /* the thread's aggregation table, or NULL */
	uint64_t aggsize;
	const struct udt_spectab *spec; /* the session's speculations, or NULL */
	uint32_t *raise;          /* raise()'s signal, sent when the fire is over */
	uint64_t site;            /* the probe site's return address (ustack() starts there) */
	struct udt_vm_mem *mem;   /* strings, scratch, dynamic variables (vars.c), or NULL */
};

/*
 * The rest of a fire's state, for the clauses that run the VM: the
 * thread's aggregation tables and speculations, and the VM's context
 * (vm), made once for all the fire's clauses: the thread's variables, the
 * session's globals, the fire's clause-local variables (this->: zero,
 * shared by its clauses, as in DTrace); then the start of its loads
 * (safe.c). run_ecb() sets what is each clause's.
 */
static void fire_vm(struct fire *f, struct udt_vm_ctx *vm, uint32_t nlocals, uint64_t *locals,
		    struct udt_vm_lwp *lwp)
{
	struct udt_tslot *t = f->ts;

	f->agg = t->agg;
	f->aggsize = t->aggsize;
	f->spec = t->spec.n ? &t->spec : NULL;
	for (uint32_t i = 0; i < nlocals; i++)
		locals[i] = 0;
	/* field by field: an initializer zeroes the whole first (rep stos: slow to start) */
	vm->args = f->args;
	vm->nargs = f->nargs;
	vm->timestamp = udt__clock_ns(f->ctl, f->now);
	vm->epid = 0;
	vm->cpu = f->cpu;
	vm->pid = f->pid;
	vm->tid = f->tid;
	vm->err = f->err;
	vm->tvars = t->tvars;
	vm->ntvars = t->ntvars;
	vm->nlocals = nlocals;
	vm->locals = locals;
	vm->gvars = t->gvars;
	vm->ngvars = t->ngvars;
	vm->spec = f->spec;
	vm->rand = udt__tls.rand;
	vm->mem = f->mem;
	vm->site = f->site;
	lwp->filled = false;
	vm->lwp = lwp;
	vm->fault = 0;
	vm->fault_insn = 0;
	vm->fault_addr = 0;
	udt__safe_fire_begin();
}

/* An error record of ECB epid's action (0: its predicate): the fault, at insn, of addr. */
static void error_record(const struct fire *f, uint32_t epid, uint32_t action, uint32_t fault,
			 uint32_t insn, uint64_t addr)
{
	struct udt_rec_ctx rc;
	uint32_t size = sizeof(struct udt_rec) + sizeof(struct udt_err);
	struct udt_rec *r = udt__rec_reserve(f->ts, f->shm, f->tb, &rc, size);

	if (!r)
		return;
	*r = (struct udt_rec){ .size = size, .epid = UDT_EPID_ERROR, .timestamp = f->now,
			       .cpu = f->cpu };
	struct udt_err *e = (struct udt_err *)(r + 1);
	e->epid = epid;
	e->action = action;
	e->fault = fault;
	e->insn = insn;
	e->addr = addr;
	rc.tb->errors++;
	udt__rec_commit(&rc);
}

/* The value of action a of a direct ECB: an argument, or the timestamp, cpu, pid or tid. */
static inline __attribute__((always_inline)) uint64_t
direct_value(const struct udt_action *a, const uint64_t *args, uint32_t nargs, uint32_t cpu,
	     const struct udt_control *c, uint64_t now, int32_t pid, int32_t tid)
{
	uint32_t src = a->src;

	if (a->kind == UDT_ACT_TRACE_ARG)
		return src < nargs ? args[src] : 0;
	if (src == UDT_VAR_TIMESTAMP)
		return udt__clock_ns(c, now);
	if (src == UDT_VAR_CPU)
		return cpu;
	return (uint64_t)(int64_t)(src == UDT_VAR_PID ? pid : tid);
}

/* n words from s to d: unrolled for the few arguments a clause traces most often. */
static inline __attribute__((always_inline)) void copy_words(uint64_t *d, const uint64_t *s,
							      uint32_t n)
{
	switch (n) {
	case 4:
		d[3] = s[3];
		/* fall through */
	case 3:
		d[2] = s[2];
		/* fall through */
	case 2:
		d[1] = s[1];
		/* fall through */
	case 1:
		d[0] = s[0];
		break;
	default:
		for (uint32_t k = 0; k < n; k++)
			d[k] = s[k];
	}
}

/*
 * An ECB of UDT_ECB_DIRECT (checked by verify_area): every action traces an
 * argument or one of timestamp, cpu, pid and tid, 8 bytes each in order. The
 * common one-liner, recorded with no VM; consecutive arguments (UDT_ECB_ARGS)
 * as a block: 2 ns less than a look at each action (docs/benchmarks.md).
 */
/* ECB e's record reserved and its header written: where its data goes, or NULL (dropped). */
static inline __attribute__((always_inline)) void *
direct_record(struct udt_tslot *ts, struct udt_shm_hdr *shm, struct udt_tbuf *tb, uint32_t cpu,
	      uint64_t now, const struct udt_ecb *e, struct udt_rec_ctx *rc)
{
	uint32_t size = (uint32_t)sizeof(struct udt_rec) + e->rec_size;
	struct udt_rec *r = udt__rec_reserve(ts, shm, tb, rc, size);

	if (!r)
		return NULL;
	*r = (struct udt_rec){ .size = size, .epid = e->epid, .timestamp = now, .cpu = cpu };
	return r + 1;
}

static inline __attribute__((always_inline)) void
direct(struct udt_tslot *ts, struct udt_shm_hdr *shm, struct udt_tbuf *tb, const uint8_t *area,
       const uint64_t *args, uint32_t nargs, uint32_t cpu, const struct udt_control *c, uint64_t now,
       int32_t pid, int32_t tid, const struct udt_ecb *e)
{
	const struct udt_action *act = (const void *)(area + e->act_off);
	struct udt_rec_ctx rc;
	uint64_t *data = direct_record(ts, shm, tb, cpu, now, e, &rc);

	if (!data)
		return;
	uint32_t n = e->act_cnt;

	if ((e->flags & UDT_ECB_ARGS) && act[0].src + n <= nargs)
		copy_words(data, args + act[0].src, n);
	else
		for (uint32_t k = 0; k < n; k++)
			data[k] = direct_value(&act[k], args, nargs, cpu, c, now, pid, tid);
	udt__rec_commit(&rc);
}

/* The same, for a fire of the VM's path (run_chain_vm()). */
static inline void run_direct(const struct fire *f, const struct udt_ecb *e)
{
	direct(f->ts, f->shm, f->tb, f->area, f->args, f->nargs, f->cpu, f->ctl, f->now, f->pid,
	       f->tid, e);
}

/* direct_str()'s string that could not be read (at bad): its error record instead. */
static __attribute__((noinline, cold)) void
direct_fault(struct udt_tslot *ts, struct udt_shm_hdr *shm, struct udt_tbuf *tb, uint32_t cpu,
	     uint64_t now, uint32_t epid, uint32_t action, uint64_t bad)
{
	struct fire f = { .ts = ts, .shm = shm, .tb = tb, .cpu = cpu, .now = now };

	error_record(&f, epid, action, UDT_FAULT_BADADDR, 0, bad);
}

/*
 * An ECB of UDT_ECB_DIRECT_STR (checked by verify_area): the values as
 * direct() records them, and each string an argument points at copied
 * into its slot as the VM's path copies it (act_write(); mem: the VM's
 * view of the runtime's memory, or NULL), with no VM. The caller has begun
 * the fire's loads (udt__safe_fire_begin()). A string that cannot be read
 * abandons the record for an error record, as the VM's path does. (Its
 * values come as arguments, as direct()'s: read back from a struct just
 * stored, they stalled the load.)
 */
static __attribute__((noinline)) void
direct_str(struct udt_tslot *ts, struct udt_shm_hdr *shm, struct udt_tbuf *tb, const uint8_t *area,
	   const uint64_t *args, uint32_t nargs, uint32_t cpu, const struct udt_control *c,
	   uint64_t now, int32_t pid, int32_t tid, const struct udt_ecb *e,
	   const struct udt_vm_mem *mem)
{
	const struct udt_action *act = (const void *)(area + e->act_off);
	struct udt_rec_ctx rc;
	uint8_t *data = direct_record(ts, shm, tb, cpu, now, e, &rc);

	if (!data)
		return;
	for (uint32_t k = 0; k < e->act_cnt; k++) {
		const struct udt_action *a = &act[k];
		if (a->kind != UDT_ACT_TRACE_ARGSTR) {
			uint64_t v = direct_value(a, args, nargs, cpu, c, now, pid, tid);
			memcpy(data + a->off, &v, 8);
			continue;
		}
		uint64_t src = a->src < nargs ? args[a->src] : 0, bad;
		/* without the VM's view of the runtime's memory, the process's string as
		   udt__vm_str_out() copies it, without its look for that memory first */
		long n = mem ? udt__vm_str_out(mem, src, data + a->off, a->size, &bad)
			     : udt__safe_strcpy((char *)data + a->off, src, a->size, &bad);
		if (n < 0) {
			udt__rec_abandon(&rc);
			direct_fault(ts, shm, tb, cpu, now, e->epid, k + 1, bad);
			return;
		}
	}
	udt__rec_commit(&rc);
}

/*
 * Is verified DIFO d one load and its return (an argument, a builtin or a
 * scalar variable: what copyinstr(arg1), a string argument or a variable
 * compile to)? Then true with *v its value, without the interpreter (false
 * too where the load would fault: the VM runs the DIFO and reports it).
 */
static inline bool one_load(const struct udt_difo *d, const struct udt_vm_ctx *vm, uint64_t *v)
{
	const struct udt_insn *in = (const struct udt_insn *)((const char *)d + d->size);
	struct udt_shape s = { 0 };

	if (d->insn_cnt != 2 || in[1].op != UDT_OP_RET || in[1].rs1 != in[0].rd)
		return false;
	switch (in[0].op) {
	case UDT_OP_LDARG:
	case UDT_OP_LDVAR:
	case UDT_OP_LDTV:
	case UDT_OP_LDGV:
		s.load = in[0].op;
		s.imm = (uint32_t)in[0].imm;
		return udt_shape_run(&s, vm, v);
	default:
		return false;
	}
}

/*
 * The value of action a: an argument, a builtin variable, or what its DIFO
 * computes (a string's address for UDT_ACT_TRACE_STR). False on a fault,
 * which vm describes.
 */
static bool act_value(const struct fire *f, struct udt_vm_ctx *vm, const struct udt_action *a,
		      uint64_t *v)
{
	*v = 0;
	switch (a->kind) {
	case UDT_ACT_TRACE_ARG:
	case UDT_ACT_TRACE_ARGSTR:
		if (a->src < f->nargs)
			*v = f->args[a->src];
		return true;
	case UDT_ACT_TRACE_VAR:
		*v = udt_vm_var(vm, a->src);
		return true;
	default:
		return !a->src || one_load((const void *)(f->area + a->src), vm, v) ||
		       !udt_difo_run((const void *)(f->area + a->src), vm, v);
	}
}

/*
 * The string at v and its NUL into dst (size bytes at most): its bytes and
 * NUL written, or -1 on a fault, which vm describes.
 */
static inline __attribute__((always_inline)) long
str_write(const struct fire *f, struct udt_vm_ctx *vm, uint64_t v, uint8_t *dst, uint32_t size)
{
	uint64_t bad;
	/* (without a view of the runtime's memory, the process's string as
	   udt__vm_str_out() copies it, without its look for that memory first) */
	long n = f->mem ? udt__vm_str_out(f->mem, v, dst, size, &bad)
			: udt__safe_strcpy((char *)dst, v, size, &bad);

	if (n < 0) {
		vm->fault = UDT_FAULT_BADADDR;
		vm->fault_addr = bad;
		vm->fault_insn = 0;
		return -1;
	}
	return n + 1;
}

/*
 * Write the value of action a at dst: 8 bytes, a string and its NUL (in
 * a->size bytes), nothing for UDT_ACT_DIFO. The bytes written, or -1 on a
 * fault, which vm describes.
 */
static long act_write(const struct fire *f, struct udt_vm_ctx *vm, const struct udt_action *a,
		      uint8_t *dst)
{
	uint64_t v;

	if (a->kind == UDT_ACT_USTACK) {
		udt__ustack((uint64_t *)(void *)dst, a->src, f->site);
		return a->size;
	}
	if (!act_value(f, vm, a, &v))
		return -1;
	if (a->kind == UDT_ACT_TRACE_STR || a->kind == UDT_ACT_TRACE_ARGSTR) {
		return str_write(f, vm, v, dst, a->size);
	} else if (a->kind == UDT_ACT_TRACEMEM) {
		/* tracemem(): the bytes as they are, fault-safe */
		if (udt__safe_copy(dst, v, a->size)) {
			vm->fault = UDT_FAULT_BADADDR;
			vm->fault_addr = v;
			vm->fault_insn = 0;
			return -1;
		}
		return a->size;
	} else if (a->kind != UDT_ACT_DIFO) {
		memcpy(dst, &v, 8);
		return 8;
	}
	return 0;
}

/*
 * An aggregation's key, component by component (ka[n], each 8-aligned: the
 * verifier checked) into key: each part written (udt_aggpart), a string's
 * padded with zeros to a word only, so that the rest of its slot is neither
 * written nor compared. A key of more components is zeroed whole first and
 * compared whole (*ret_parts NULL). False on a fault.
 */
static bool agg_key(const struct fire *f, struct udt_vm_ctx *vm, const struct udt_action *ka,
		    uint32_t n, uint8_t *key, uint32_t key_size, struct udt_aggpart *parts,
		    const struct udt_aggpart **ret_parts)
{
	bool by_parts = n <= UDT_AGG_PARTS;

	if (!by_parts)
		udt__agg_key_zero(key, key_size);
	for (uint32_t k = 0; k < n; k++) {
		uint8_t *at = key + ka[k].off;
		/* (an argument's string, the usual key: without the two calls) */
		long w = ka[k].kind != UDT_ACT_TRACE_ARGSTR
				 ? act_write(f, vm, &ka[k], at)
				 : str_write(f, vm, ka[k].src < f->nargs ? f->args[ka[k].src] : 0, at,
					     ka[k].size);
		if (w < 0)
			return false;
		if (!by_parts)
			continue;
		/* the string's last word: its bytes, then zeros, stored 1, 2 and 4 bytes at a
		   time as the gap asks (a load of the word to mask it would wait for the copy's
		   stores) */
		uint32_t gap = (8 - ((uint32_t)w & 7)) & 7, i = (uint32_t)w;
		static const uint32_t zero;
		if (gap & 1)
			at[i++] = 0;
		if (gap & 2) {
			memcpy(at + i, &zero, 2);
			i += 2;
		}
		if (gap & 4)
			memcpy(at + i, &zero, 4);
		parts[k] = (struct udt_aggpart){ ka[k].off, (uint32_t)(w + 7) & ~7u };
	}
	*ret_parts = by_parts ? parts : NULL;
	return true;
}

/*
 * An aggregating action: the key built in the scratch of the thread's
 * active table, then the value. The table is announced in agg_busy and
 * re-checked, as a record's half is (record.c), so that the consumer can
 * take the other one.
 */
static bool aggregate(const struct fire *f, struct udt_vm_ctx *vm, const struct udt_aggdesc *ad)
{
	const struct udt_action *ka = (const void *)(f->area + ad->key_off);
	struct udt_tbuf *tb = f->tb;
	uint32_t a = LOAD_RELAXED(&tb->agg_active) & 1;
	uint64_t v = 0, incr = 1;
	bool ok = true;

	if (!f->agg)
		return true; /* no table: the consumer sees no entry and reports none */
	for (;;) {
		STORE_RELAXED(&tb->agg_busy, a + 1);
		if (LOAD_RELAXED(&udt__ctl.hdr.flags) & UDT_CTL_FENCE)
			__atomic_thread_fence(__ATOMIC_SEQ_CST);
		else
			COMPILER_BARRIER();
		uint32_t now = LOAD_ACQUIRE(&tb->agg_active) & 1;
		if (now == a)
			break;
		a = now;
	}
	uint8_t *table = f->agg + a * f->aggsize;
	uint8_t *key = udt__agg_scratch(table, f->aggsize);
	if (key) {
		struct udt_aggpart parts[UDT_AGG_PARTS];
		const struct udt_aggpart *p;
		ok = agg_key(f, vm, ka, ad->key_cnt, key, ad->key_size, parts, &p);
		if (ok && ad->val.kind)
			ok = act_value(f, vm, &ad->val, &v);
		if (ok && ad->incr.kind)
			ok = act_value(f, vm, &ad->incr, &incr);
		if (ok)
			udt__agg_update(table, f->aggsize, ad, key, p, p ? ad->key_cnt : 0,
					(int64_t)v, (int64_t)incr);
	}
	STORE_RELEASE(&tb->agg_busy, 0);
	return ok;
}

/* commit()'s sink: the speculation's records, copied whole into this thread's principal buffer. */
static bool to_principal(void *arg, const uint8_t *recs, uint64_t len)
{
	const struct fire *f = arg;
	struct udt_rec_ctx rc;
	/* (one that does not fit is dropped and counted, as DTrace drops a commit) */
	uint8_t *p = len <= UINT32_MAX ? udt__rec_reserve(f->ts, f->shm, f->tb, &rc, (uint32_t)len) : NULL;

	if (!p)
		return false;
	memcpy(p, recs, len);
	udt__rec_commit(&rc);
	return true;
}

/* A commit another thread is still writing into: the consumer finishes it where this is read. */
static void commit_record(const struct fire *f, uint32_t spec)
{
	struct udt_rec_ctx rc;
	uint32_t size = sizeof(struct udt_rec) + sizeof(struct udt_commit);
	struct udt_rec *r = udt__rec_reserve(f->ts, f->shm, f->tb, &rc, size);

	if (!r) {
		udt__spec_abort_commit(f->spec, spec); /* no one would finish it: discarded */
		return;
	}
	*r = (struct udt_rec){ .size = size, .epid = UDT_EPID_COMMIT, .timestamp = f->now,
			       .cpu = f->cpu };
	*(struct udt_commit *)(r + 1) = (struct udt_commit){ .spec = spec };
	udt__rec_commit(&rc);
}

enum { SPEC_FAULT, SPEC_OK, SPEC_STOP };

/*
 * speculate(), commit() or discard() (action a of ECB e). speculate() gives
 * the record its room in the speculation (*rec); without one (ID 0, a
 * speculation not active, a full buffer) the rest of the clause is not run,
 * as in DTrace. An ID past the session's is DTrace's "illegal operation".
 */
static int spec_action(const struct fire *f, struct udt_vm_ctx *vm, const struct udt_ecb *e,
		       const struct udt_action *a, struct udt_spec_rec *sr, struct udt_rec **rec)
{
	uint64_t id;
	int rv;

	if (!act_value(f, vm, a, &id))
		return SPEC_FAULT;
	if (a->kind == UDT_ACT_SPECULATE) {
		if (LOAD_RELAXED(&f->shm->stopped))
			return SPEC_STOP; /* exit() or a full fill buffer: nothing more is recorded */
		rv = udt__spec_reserve(f->spec, id, (uint32_t)sizeof(struct udt_rec) + e->rec_size, sr);
		if (rv == UDT_SPEC_OK) {
			/* the size stays 0 until udt__spec_publish() */
			*sr->rec = (struct udt_rec){ .epid = e->epid, .timestamp = f->now,
						     .cpu = f->cpu };
			*rec = sr->rec;
			return SPEC_OK;
		}
	} else {
		rv = udt__spec_end(f->spec, id, a->kind == UDT_ACT_COMMIT, to_principal, (void *)f);
		if (rv == UDT_SPEC_DEFERRED && a->kind == UDT_ACT_COMMIT)
			commit_record(f, (uint32_t)(id - 1));
		if (rv != UDT_SPEC_BADID)
			return SPEC_OK; /* (a discard left busy: the consumer's cleaner finishes it) */
	}
	if (rv != UDT_SPEC_BADID)
		return SPEC_STOP;
	vm->fault = UDT_FAULT_ILLOP_ARG;
	vm->fault_insn = 0;
	vm->fault_addr = 0;
	return SPEC_FAULT;
}

/*
 * raise(sig): the signal is sent to the thread when the fire is over (so
 * that a handler's probes are not lost to the nesting guard); DTrace's
 * "illegal operation" for a number past the last signal.
 */
static bool raise_action(const struct fire *f, struct udt_vm_ctx *vm, const struct udt_action *a)
{
	uint64_t sig;

	if (!act_value(f, vm, a, &sig))
		return false;
	if (sig >= 65) {
		vm->fault = UDT_FAULT_ILLOP_ARG;
		vm->fault_insn = 0;
		vm->fault_addr = 0;
		return false;
	}
	*f->raise = (uint32_t)sig;
	return true;
}

/* chill(ns): the thread spins, within its budget (udt__chill()); past it, "illegal operation". */
static bool chill_action(const struct fire *f, struct udt_vm_ctx *vm, const struct udt_action *a)
{
	struct udt_tls *t = &udt__tls;
	uint64_t ns;

	if (!act_value(f, vm, a, &ns))
		return false;
	if (udt__chill(ns, &t->chill_mark, &t->chilled))
		return true;
	vm->fault = UDT_FAULT_ILLOP_ARG;
	vm->fault_insn = 0;
	vm->fault_addr = 0;
	return false;
}

/*
 * Run one ECB: predicate, then its actions, into a record unless all
 * aggregate. vm is the fire's context (fire_vm()).
 */
static void run_ecb(const struct fire *f, struct udt_vm_ctx *vm, const struct udt_ecb *e)
{
	const uint8_t *area = f->area;
	struct udt_rec_ctx rc = { 0 }; /* (GCC cannot see it is set where used) */
	struct udt_rec *r = NULL;
	uint8_t *data = NULL;
	uint64_t v;

	vm->epid = e->epid;
	if (f->mem)
		f->mem->scratch_used = 0; /* the scratch space is each clause's, as in DTrace */
	if (e->pred) {
		if (udt_difo_run((const void *)(area + e->pred), vm, &v)) {
			error_record(f, e->epid, 0, vm->fault, vm->fault_insn, vm->fault_addr);
			return;
		}
		if (!v)
			return;
	}
	bool spec = e->flags & UDT_ECB_SPEC; /* the record goes where speculate() says */
	struct udt_spec_rec sr;

	if (e->flags & UDT_ECB_NOREC) {
		if (LOAD_RELAXED(&f->shm->stopped))
			return;
	} else if (!spec) {
		uint32_t size = (uint32_t)sizeof(struct udt_rec) + e->rec_size;
		r = udt__rec_reserve(f->ts, f->shm, f->tb, &rc, size);
		if (!r)
			return;
		*r = (struct udt_rec){ .size = size, .epid = e->epid, .timestamp = f->now,
				       .cpu = f->cpu };
		data = (uint8_t *)(r + 1);
	}
	const struct udt_action *act = (const void *)(area + e->act_off);
	bool stop = false;

	for (uint32_t k = 0; k < e->act_cnt; k++) {
		bool ok;

		if (act[k].kind == UDT_ACT_AGG) {
			ok = aggregate(f, vm, (const void *)(area + act[k].src));
		} else if (is_spec_action(act[k].kind)) {
			int rv = spec_action(f, vm, e, &act[k], &sr, &r);
			if (rv == SPEC_STOP)
				return; /* (the verifier: no record of ours is open before it) */
			ok = rv == SPEC_OK;
			if (ok && act[k].kind == UDT_ACT_SPECULATE)
				data = (uint8_t *)(r + 1);
		} else if (act[k].kind == UDT_ACT_RAISE) {
			ok = raise_action(f, vm, &act[k]);
		} else if (act[k].kind == UDT_ACT_CHILL) {
			ok = chill_action(f, vm, &act[k]);
		} else {
			ok = act_write(f, vm, &act[k], data + act[k].off) >= 0;
		}
		if (!ok) {
			if (r && spec)
				udt__spec_publish(&sr, false);
			else if (r)
				udt__rec_abandon(&rc);
			error_record(f, e->epid, k + 1, vm->fault, vm->fault_insn, vm->fault_addr);
			return;
		}
		stop |= act[k].kind == UDT_ACT_EXIT; /* the status is recorded */
	}
	if (r && spec)
		udt__spec_publish(&sr, true);
	else if (r)
		udt__rec_commit(&rc);
	if (stop)
		STORE_RELAXED(&f->shm->stopped, 1); /* exit(): nothing more is recorded */
}

/*
 * An ECB of UDT_ECB_DIRECT_AGG (checked by verify_area): its aggregations
 * updated by the VM's path's functions, but without its context (the
 * variables, this->, the view of the runtime's memory: 7 ns of a count(),
 * docs/benchmarks.md §8); a key's string copied by the fault-safe copy, a
 * fault the VM's error record. The caller has begun the fire's loads.
 */
static __attribute__((noinline)) void
direct_agg(struct udt_tslot *ts, struct udt_shm_hdr *shm, struct udt_tbuf *tb,
	   const uint8_t *area, const uint64_t *args, uint32_t nargs, uint32_t cpu, uint64_t now,
	   int32_t pid, int32_t tid, const struct udt_ecb *e)
{
	const struct udt_action *act = (const void *)(area + e->act_off);
	struct udt_vm_ctx vm;
	struct fire f;

	/* field by field, only what aggregate() and error_record() read of them (an
	   initializer would zero both whole first) */
	f.ts = ts;
	f.shm = shm;
	f.tb = tb;
	f.area = area;
	f.args = args;
	f.nargs = nargs;
	f.cpu = cpu;
	f.now = now;
	f.mem = NULL;
	f.agg = ts->agg;
	f.aggsize = ts->aggsize;
	/* the builtins a direct key or value may read (udt_agg_part_direct()), and a fault */
	vm.cpu = cpu;
	vm.pid = pid;
	vm.tid = tid;
	vm.lwp = NULL;
	vm.fault = 0;
	vm.fault_insn = 0;
	vm.fault_addr = 0;
	for (uint32_t k = 0; k < e->act_cnt; k++)
		if (!aggregate(&f, &vm, (const void *)(area + act[k].src))) {
			error_record(&f, e->epid, k + 1, vm.fault, vm.fault_insn, vm.fault_addr);
			return;
		}
}

/* The first ECB of semaphore key in one generation's hash, or NULL. */
static inline const struct udt_ecb *hash_find(const struct udt_ecb *ecbs, const uint32_t *hash,
					      uint32_t bits, uint64_t key)
{
	uint32_t mask = (1u << bits) - 1, slot = udt_sem_hash(key, bits);

	for (uint32_t probes = 0; probes <= mask; probes++, slot = (slot + 1) & mask) {
		uint32_t h = hash[slot];
		if (!h)
			break;
		if (ecbs[h - 1].sem == key)
			return &ecbs[h - 1];
	}
	return NULL;
}

/*
 * find_ecbs() in a session with later generations (newest: the newest's
 * offset): each verified once, then searched newest first, generation 0
 * last (a library loaded again at the same address has its semaphores' old
 * ECBs in an older generation). Out of line: a session without them pays a
 * load and a test on a miss.
 */
static __attribute__((noinline)) const struct udt_ecb *
find_in_gens(struct udt_control *c, struct udt_slot_rt *r, uint32_t session, uint32_t area_idx,
	     uint32_t newest, uint64_t key, uint32_t *ret_ecb_off)
{
	const uint8_t *area = udt__area(c, area_idx);
	const struct udt_area_hdr *ah = (const void *)area;
	/* generations are appended: those above the newest verified are new */
	uint64_t done = LOAD_ACQUIRE(&r->verified_gens);
	uint32_t stop = done >> 32 == session ? (uint32_t)done : 0;

	if (newest > stop) {
		if (verify_gens(c, area_idx, newest, stop)) {
			STORE_RELAXED(&c->bad_session, session);
			udt__session_end(c, session, UDT_STATE_DETACHED);
			return NULL;
		}
		STORE_RELEASE(&r->verified_gens, (uint64_t)session << 32 | newest);
	}
	for (uint32_t off = newest; off;) {
		const struct udt_area_gen *g = (const void *)(area + off);
		const struct udt_ecb *e = hash_find((const void *)(area + g->ecb_off),
						    (const void *)(area + g->hash_off), g->hash_bits,
						    key);
		if (e) {
			*ret_ecb_off = g->ecb_off;
			return e;
		}
		off = g->prev;
	}
	*ret_ecb_off = ah->ecb_off;
	return hash_find((const void *)(area + ah->ecb_off), (const void *)(area + ah->hash_off),
			 ah->hash_bits, key);
}

/*
 * The first ECB of probe (semaphore) key in slot's session (c), whose
 * enablings are in area area_idx; NULL if it has none. *ret_ecb_off gets the
 * offset of the ECB array of its generation (an ECB's next is an index into
 * it). Verified once per session, then found by the area's hash (and its
 * later generations': find_in_gens()). The fire keeps what it found in the
 * thread's one-probe cache of the session (udt_tslot.hit_*), which the next
 * fire of the same probe by this thread uses instead. Published ECBs never
 * change, and a probe that appears in a session comes with ECBs of its own
 * in a new generation, so a cache entry stays right for its session.
 */
static inline __attribute__((always_inline)) const struct udt_ecb *
find_ecbs(struct udt_control *c, uint32_t slot, uint32_t session, uint64_t key, uint32_t area_idx,
	  uint32_t *ret_ecb_off)
{
	struct udt_slot_rt *r = &udt__slot_rt[slot];
	const uint8_t *area = udt__area_at(slot, area_idx);
	const struct udt_area_hdr *ah = (const void *)area;

	if (LOAD_ACQUIRE(&r->verified) != session) {
		if (verify_area(c, slot, area_idx)) {
			STORE_RELAXED(&c->bad_session, session);
			udt__session_end(c, session, UDT_STATE_DETACHED);
			return NULL;
		}
		STORE_RELEASE(&r->verified, session);
		/* a session with profile probes arms their timers (profile.c) */
		if (ah->prof_cnt)
			udt__profile_sync(false);
	}
	/* pairs with the consumer's store of gen_off after the generation's bytes */
	uint32_t newest = LOAD_ACQUIRE(&ah->gen_off);

	if (newest) {
		uint32_t off; /* (*ret_ecb_off itself stays in a register) */
		const struct udt_ecb *e = find_in_gens(c, r, session, area_idx, newest, key, &off);
		*ret_ecb_off = off;
		return e;
	}
	*ret_ecb_off = ah->ecb_off;
	return hash_find((const void *)(area + ah->ecb_off), (const void *)(area + ah->hash_off),
			 ah->hash_bits, key);
}

/* Keep in the thread's cache of the session (ts) that key's ECBs are e, in area's ecb_off. */
static inline void cache(struct udt_tslot *ts, uint64_t key,
			 const struct udt_ecb *e, const uint8_t *area, uint32_t ecb_off)
{
	ts->hit_sem = key;
	ts->hit_ecb = e;
	ts->hit_ecbs = (const void *)(area + ecb_off);
	ts->hit_area = area;
}

/*
 * miss() for the fires it leaves: a session to verify, later generations,
 * the thread's first fire in the session (its buffer), a lost fire.
 */
static __attribute__((noinline)) struct udt_tslot *miss_slow(struct udt_control *c, uint32_t slot,
							     uint32_t session, uint64_t key)
{
	struct udt_tslot *ts = udt__tslot_of(&udt__tls, slot, session);
	uint32_t area_idx = LOAD_RELAXED(&c->area) & 1, ecb_off;
	const struct udt_ecb *e = find_ecbs(c, slot, session, key, area_idx, &ecb_off);

	if (!e)
		return NULL;
	if (!ts || LOAD_RELAXED(&c->shm_fd) >= 0) {
		ts = udt__thread_slot(c, session);
		if (!ts)
			return NULL; /* (lost, and counted why) */
	}
	cache(ts, key, e, udt__area_at(slot, area_idx), ecb_off);
	return ts;
}

/*
 * A fire that missed the thread's cache of slot c's session: its ECBs of
 * key, the thread's state in the session (its buffer taken at its first
 * fire), and the cache set. NULL when the session has no ECB of the probe
 * (it was enabled by another session or tracer), or the fire is lost. The
 * common miss (a verified session of one generation, the thread's buffer
 * at hand) calls nothing; the others are miss_slow()'s.
 */
static __attribute__((noinline)) struct udt_tslot *miss(struct udt_control *c, uint32_t slot,
							uint32_t session, uint64_t key)
{
	struct udt_tslot *ts = udt__tslot_of(&udt__tls, slot, session);
	uint32_t area_idx = LOAD_RELAXED(&c->area) & 1;
	const uint8_t *area = udt__area_at(slot, area_idx);
	const struct udt_area_hdr *ah = (const void *)area;

	/* pairs with the consumer's store of gen_off after the generation's bytes */
	if (LOAD_ACQUIRE(&udt__slot_rt[slot].verified) != session || LOAD_ACQUIRE(&ah->gen_off) ||
	    !ts || LOAD_RELAXED(&c->shm_fd) >= 0)
		return miss_slow(c, slot, session, key);
	const struct udt_ecb *e = hash_find((const void *)(area + ah->ecb_off),
					    (const void *)(area + ah->hash_off), ah->hash_bits, key);
	if (!e)
		return NULL;
	cache(ts, key, e, area, ah->ecb_off);
	return ts;
}

/*
 * A light predicate (UDT_ECB_LIGHTPRED), before the VM's context is built:
 * it needs only what this context holds. Most are of the shape
 * udt_difo_shape() decodes: the thread keeps the last one decoded, so that a
 * fire evaluates it natively (decoding it cost more than the rest of a false
 * predicate). False: the clause is skipped at that cost. True, or a fault:
 * run_chain_vm() runs it again, and reports the fault as any.
 */
static inline __attribute__((always_inline)) bool light_pred(const struct fire *f,
							      const struct udt_ecb *e)
{
	struct udt_tslot *t = f->ts;
	const struct udt_difo *d = (const void *)(f->area + e->pred);
	struct udt_vm_ctx vm;
	uint64_t v;

	if (t->shape_pred != e->pred || t->shape_area != f->area) {
		(void)udt_difo_shape(d, &t->shape);
		t->shape_pred = e->pred;
		t->shape_area = f->area;
	}
	/* only what a light DIFO reads (udt_difo_is_light()), the rest never touched: zeroing
	   the whole context cost more than the predicate; the builtins only if read */
	vm.args = f->args;
	vm.nargs = f->nargs;
	if (t->shape.load == UDT_OP_LDARG && udt_shape_run(&t->shape, &vm, &v))
		return v; /* (an argument's: the most common, which reads nothing more) */
	vm.tvars = t->tvars;
	vm.ntvars = t->ntvars;
	vm.gvars = t->gvars;
	vm.ngvars = t->ngvars;
	if (t->shape.load && t->shape.load != UDT_OP_LDVAR && udt_shape_run(&t->shape, &vm, &v))
		return v;
	vm.timestamp = udt__clock_ns(f->ctl, f->now);
	vm.epid = e->epid;
	vm.cpu = f->cpu;
	vm.pid = f->pid;
	vm.tid = f->tid;
	vm.err = f->err;
	if (t->shape.load == UDT_OP_LDVAR && udt_shape_run(&t->shape, &vm, &v))
		return v;
	return udt_difo_run(d, &vm, &v) || v;
}

/* Does ECB e apply to the site at pc? (An ECB of a probe in one function only.) */
static inline bool site_matches(const struct udt_ecb *e, uint64_t pc)
{
	return !e->pc_hi || (pc >= e->pc_lo && pc < e->pc_hi);
}

/*
 * The ECBs of a fire from e on, once one of them needs the VM: this frame
 * holds the fire's clause-local variables (this->), which the common fire,
 * of direct ECBs only, does without. Returns the signal a clause raised
 * (raise()), or 0.
 */
static __attribute__((noinline)) uint32_t run_chain_vm(struct fire *f, const struct udt_ecb *e,
						       const struct udt_ecb *ecbs, uint64_t pc)
{
	uint64_t locals[UDT_MAX_LOCALS];
	struct udt_vm_mem mem;
	struct udt_vm_ctx vm;
	struct udt_vm_lwp lwp;     /* curlwpsinfo's */
	const struct udt_area_hdr *ah = (const void *)f->area;
	uint32_t sig = 0;

	f->raise = &sig;
	f->site = pc;
	/* strings, scratch, dynamic variables (vars.c), when the session has them */
	f->mem = udt__vars_fire(&mem, f->shm, f->ts, f->area);
	fire_vm(f, &vm, ah->nlocals, locals, &lwp);
	for (;;) {
		if (site_matches(e, pc)) {
			if (e->flags & UDT_ECB_DIRECT)
				run_direct(f, e);
			else if (e->flags & UDT_ECB_DIRECT_STR)
				direct_str(f->ts, f->shm, f->tb, f->area, f->args, f->nargs, f->cpu,
					   f->ctl, f->now, f->pid, f->tid, e, f->mem);
			else
				run_ecb(f, &vm, e);
		}
		if (!e->next)
			break;
		e = &ecbs[e->next - 1];
	}
	if (f->mem && f->mem->dyn)
		udt__dyn_leave(f->tb);
	udt__safe_fire_end();
	return sig; /* raise()'s, if a clause raised one */
}

/* fire_slot()'s result when its deadman ended the session: its memory is to be released. */
#define UDT_FIRE_RELEASE (1u << 31)

/*
 * One fire in slot's session: its deadman, its ECBs of the probe (key),
 * run into the thread's buffer of the session. Returns the signal a clause
 * raised (raise()), or UDT_FIRE_RELEASE, or 0.
 */
static inline __attribute__((always_inline)) uint32_t
fire_slot(struct udt_tls *t, uint32_t slot, uint64_t key, unsigned nargs, const uint64_t *args,
	  int err, uint64_t pc)
{
	struct udt_control *c = &udt__ctl.slots[slot];

	/* (in a register: else the compiler recomputes its address at each use) */
	__asm__("" : "+r"(c));
	uint32_t session = LOAD_RELAXED(&c->session);

	if (udt__forked(c, slot, session))
		return 0; /* our parent's session */
	uint64_t now = udt__clock(c);

	if (now > LOAD_RELAXED(&c->deadline)) {
		udt__session_end(c, session, UDT_STATE_DEADMAN);
		return UDT_FIRE_RELEASE; /* its memory, once out of the fire */
	}
	struct udt_tslot *ts = t->slot[slot];
	if (ts && t->slot_session[slot] == session && ts->hit_sem == key) {
		/* the consumer has the shared memory once shm_fd is closed */
		if (LOAD_RELAXED(&c->shm_fd) >= 0)
			(void)udt__shm_get(c, session);
	} else if (!(ts = miss(c, slot, session, key))) {
		return 0; /* enabled by another session or tracer, not by this one (or lost) */
	}
	const struct udt_ecb *e = ts->hit_ecb, *ecbs = ts->hit_ecbs;

	/* what a direct ECB needs, in locals (they are passed to it, never reloaded: a reload
	   of stores just made stalls); the rest when one needs the VM (run_chain_vm()) */
	struct udt_shm_hdr *shm = ts->shm;
	struct udt_tbuf *tb = ts->tb;
	const uint8_t *area = ts->hit_area;
	uint32_t cpu = udt__getcpu_at(t->cpu_id);
	int32_t pid = c->pid, tid = t->tid;
	for (;;) {
		if (site_matches(e, pc)) {
			if (e->flags & UDT_ECB_DIRECT) {
				direct(ts, shm, tb, area, args, nargs, cpu, c, now, pid, tid, e);
			} else if (e->flags & UDT_ECB_DIRECT_STR) {
				/* (the strings are the process's: no view of the runtime's memory) */
				udt__safe_fire_begin();
				direct_str(ts, shm, tb, area, args, nargs, cpu, c, now, pid, tid, e,
					   NULL);
				udt__safe_fire_end();
			} else if (e->flags & UDT_ECB_DIRECT_AGG) {
				udt__safe_fire_begin();
				direct_agg(ts, shm, tb, area, args, nargs, cpu, now, pid, tid, e);
				udt__safe_fire_end();
			} else {
				struct fire f; /* (the rest: run_chain_vm()) */
				f.ts = ts;
				f.area = area;
				f.args = args;
				f.nargs = nargs;
				f.cpu = cpu;
				f.now = now;
				f.ctl = c;
				f.pid = pid;
				f.tid = tid;
				f.err = err;
				if (!(e->flags & UDT_ECB_LIGHTPRED) || light_pred(&f, e)) {
					f.shm = shm;
					f.tb = tb;
					return run_chain_vm(&f, e, ecbs, pc);
				}
			}
		}
		if (!e->next)
			return 0;
		e = &ecbs[e->next - 1];
	}
}

/*
 * A fire nested in another of this thread's (a probe fired from a signal
 * handler that interrupted a fire): lost in each session with ECBs of it.
 */
static __attribute__((noinline, cold)) void lost_nested(uint64_t on, uint64_t key)
{
	do {
		uint32_t slot = (uint32_t)__builtin_ctzll(on) >> 3;
		struct udt_control *c = &udt__ctl.slots[slot];
		uint32_t session = LOAD_RELAXED(&c->session), ecb_off;

		on &= ~(0xffull << (slot * 8));
		if (!udt__forked(c, slot, session) &&
		    find_ecbs(c, slot, session, key, LOAD_RELAXED(&c->area) & 1, &ecb_off))
			udt__lost(c);
	} while (on);
}

/*
 * A fire in several sessions (several bits of on): each one's ECBs of the
 * probe, in slot order. The signal the last one raising raised, its slot in
 * *ret_slot. Out of line: the common fire is one session's.
 */
static __attribute__((noinline)) uint32_t fire_many(struct udt_tls *t, uint64_t on, uint64_t key,
						    unsigned nargs, const uint64_t *args,
						    int err, uint64_t pc, uint32_t *ret_slot)
{
	uint32_t sig = 0;

	do {
		uint32_t slot = (uint32_t)__builtin_ctzll(on) >> 3,
			 s = fire_slot(t, slot, key, nargs, args, err, pc);

		on &= ~(0xffull << (slot * 8)); /* (a live byte is 1; any other is one slot too) */
		if (s & ~UDT_FIRE_RELEASE) {
			sig = (sig & UDT_FIRE_RELEASE) | s;
			*ret_slot = slot;
		} else {
			sig |= s;
		}
	} while (on);
	return sig;
}

/*
 * What a fire asked for, once out of it (fire_slot()'s result): the memory of
 * a session its deadman ended, and raise()'s signal, delivered as the call
 * returns (its handler may fire probes of its own).
 */
static __attribute__((noinline, cold)) void fire_done(struct udt_tls *t, uint32_t slot,
						      uint32_t sig)
{
	if (sig & UDT_FIRE_RELEASE)
		udt__sessions_release_ended();
	sig &= ~UDT_FIRE_RELEASE;
	if (sig)
		(void)syscall(SYS_tgkill, (long)udt__ctl.slots[slot].pid, (long)t->tid,
			      (long)sig);
}

/*
 * A fire of the probe whose ECBs are keyed by key in the sessions of the
 * slots whose bits are set in on (their live bytes), from the site at pc
 * (its return address, or the address after a SystemTap site's nop): the
 * arguments are a0..a3, or the nargs at argv when it is not NULL.
 */
static inline __attribute__((always_inline)) void
fire_slots(uint64_t on, uint64_t key, unsigned nargs, uint64_t a0, uint64_t a1, uint64_t a2,
	   uint64_t a3, const uint64_t *argv, uint64_t pc)
{
	struct udt_tls *t = &udt__tls;
	uint32_t sig, slot = (uint32_t)__builtin_ctzll(on) >> 3; /* raise()'s, and whose */

	if (t->depth) {
		lost_nested(on, key);
		return;
	}
	t->depth = 1;
	/*
	 * The sessions still live now that the depth says we are in a fire: one
	 * that ended since the first read is left alone (its memory is unmapped
	 * once no thread is in a fire: session.c, udt__sessions_release(), whose
	 * membarrier orders the store above before this load, as a record's busy
	 * and active are).
	 */
	COMPILER_BARRIER();
	on &= LOAD_RELAXED(&udt__ctl.hdr.lives);
	if (!on) {
		t->depth = 0;
		return;
	}
	slot = (uint32_t)__builtin_ctzll(on) >> 3;
	if (!t->errp)
		t->errp = &errno;
	int saved_errno = *t->errp;
	const uint64_t regs[4] = { a0, a1, a2, a3 };
	const uint64_t *args = argv ? argv : nargs <= 4 ? regs : (const uint64_t *)(uintptr_t)a0;

	if (!(on & (on - 1)))
		sig = fire_slot(t, slot, key, nargs, args, saved_errno, pc);
	else
		sig = fire_many(t, on, key, nargs, args, saved_errno, pc, &slot);
	t->depth = 0;
	if (sig)
		fire_done(t, slot, sig);
	*t->errp = saved_errno;
}

UDT_EXPORT void udt__fire(const volatile unsigned short *sem, unsigned nargs, uint64_t a0,
			  uint64_t a1, uint64_t a2, uint64_t a3)
{
	/* pairs with the consumers' writes of their live bytes after their sessions' setup */
	uint64_t on = LOAD_ACQUIRE(&udt__ctl.hdr.lives);

	if (on)
		fire_slots(on, (uint64_t)(uintptr_t)sem, nargs, a0, a1, a2, a3, NULL,
			   (uint64_t)(uintptr_t)__builtin_return_address(0)); /* the probe site */
}

void udt__fire_at(uint64_t key, unsigned nargs, const uint64_t *args, uint64_t pc)
{
	uint64_t on = LOAD_ACQUIRE(&udt__ctl.hdr.lives);

	if (on)
		fire_slots(on, key, nargs, 0, 0, 0, 0, args, pc);
}

void udt__fire_in(uint32_t slot, uint64_t key, unsigned nargs, uint64_t a0, uint64_t a1)
{
	uint64_t on = LOAD_ACQUIRE(&udt__ctl.hdr.lives) & (1ull << (slot * 8));

	if (on)
		fire_slots(on, key, nargs, a0, a1, 0, 0, NULL, 0);
}
