/* SPDX-License-Identifier: MIT */
/*
 * The consumer's side of string variables, scratch space and dynamic
 * variables (docs/runtime.md, "Variables"):
 *
 *  - their parameters for the runtime (struct udt_vars in the area): strsize,
 *    the number of string variables of each scope, scratchsize, dynvarsize
 *    and the size of an element, which the compiled program decides;
 *  - dtrace's own memory for BEGIN and END, which run here: a thread's
 *    strings and scratch, the global strings, a dynamic variable space laid
 *    out as the target's. The target starts from what BEGIN left: the
 *    global strings and the live elements go into the area, and the runtime
 *    copies them into the shared memory it makes. END works on the shared
 *    memory's, which outlives the target;
 *  - the cleaning of the target's dynamic variables (vm/dynvar.c has
 *    the protocol): at cleanrate, unlink the deleted elements, then, once
 *    every thread that was inside the space at the unlink has moved on,
 *    give them back. DTrace does this with a cross-call to every CPU; here
 *    membarrier() and each thread's dyn_gen do it, and no thread ever waits;
 *  - the drops, reported as DTrace reports them.
 */
#include "consumer/internal.h"
#include "vm/vm_mem.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

/* Elements unlinked in one round at most (the rest wait for the next). */
#define RINSE_MAX 65536u

struct cs_vars {
	struct udt_vars v;         /* the area's, but for its offsets */
	uint8_t *tlocal;           /* dtrace's thread: self-> strings, this-> strings, scratch */
	uint64_t tlocal_sz;
	uint8_t *gstrs;            /* the global strings, as BEGIN and END see them */
	struct udt_dynhdr *dyn;    /* BEGIN's dynamic variables (and END's without a target) */
	struct udt_vm_mem mem;
	/* the cleaner */
	uint32_t *rinse;           /* unlinked, waiting for the threads */
	uint32_t rinse_cnt;
	uint32_t *gen_seen;        /* each thread's dyn_gen just after the unlink */
	uint32_t gen_cnt;
	uint64_t last_clean;
	uint64_t reported[3];      /* drops, dirty drops, rinse drops already reported */
	uint64_t local_reported[3];
};

int cs__vars_open(struct cs_trace *t, char **ret_err)
{
	struct cs_vars *cv;

	if (!dl_program_uses_mem(t->prog))
		return 0;
	cv = udt__xcalloc(1, sizeof(*cv));
	t->vars = cv;
	cv->v = (struct udt_vars){
		.size = sizeof(cv->v),
		.strsize = (uint32_t)t->o.strsize,
		.ntstrs = (uint32_t)dl_program_strvar_count(t->prog, DL_VAR_THREAD, t->o.strsize),
		.nlstrs = (uint32_t)dl_program_strvar_count(t->prog, DL_VAR_LOCAL, t->o.strsize),
		.ngstrs = (uint32_t)dl_program_strvar_count(t->prog, DL_VAR_GLOBAL, t->o.strsize),
		.scratchsize = t->o.scratchsize,
		.chunk_sz = (uint32_t)dl_program_dyn_chunk(t->prog, t->o.strsize),
	};
	/* a space too small for one element is raised to hold one, as DTrace's
	   dtrace_dstate_init() raises it (then every other one drops) */
	if (cv->v.chunk_sz)
		cv->v.dynvarsize = t->o.dynvarsize < udt__dyn_min_size(cv->v.chunk_sz)
					   ? udt__dyn_min_size(cv->v.chunk_sz)
					   : t->o.dynvarsize;
	/* (a member's clauses run in its process only: dtrace's own memory is the lead's) */
	if (t->lead)
		return 0;
	uint64_t slot = udt_str_slot(cv->v.strsize);
	cv->tlocal_sz = slot * (cv->v.ntstrs + cv->v.nlstrs) + cv->v.scratchsize;
	cv->tlocal = udt__xcalloc(1, cv->tlocal_sz + 8);
	cv->gstrs = udt__xcalloc(cv->v.ngstrs + 1, slot);
	/* a global string starts as "", not NULL, as DTrace's (a thread's starts unset) */
	for (uint32_t i = 0; i < cv->v.ngstrs; i++)
		*(uint64_t *)(void *)(cv->gstrs + i * slot) = 1;
	if (cv->v.dynvarsize) {
		cv->dyn = udt__xcalloc(1, cv->v.dynvarsize);
		if (udt__dyn_init(cv->dyn, cv->v.dynvarsize, cv->v.chunk_sz)) {
			*ret_err = udt__xasprintf("failed to set option -x dynvarsize: %llu bytes "
						  "cannot hold one dynamic variable of %u bytes",
						  (unsigned long long)cv->v.dynvarsize, cv->v.chunk_sz);
			return -1;
		}
	}
	return 0;
}

void cs__vars_sizes(const struct cs_trace *t, uint64_t *ret_ngstrs, uint64_t *ret_strsize,
		    uint64_t *ret_dynvarsize)
{
	const struct cs_vars *cv = t->vars;

	*ret_ngstrs = cv ? cv->v.ngstrs : 0;
	*ret_strsize = cv ? cv->v.strsize : 0;
	*ret_dynvarsize = cv ? cv->v.dynvarsize : 0;
}

void cs__vars_close(struct cs_trace *t)
{
	struct cs_vars *cv = t->vars;

	if (!cv)
		return;
	free(cv->tlocal);
	free(cv->gstrs);
	free(cv->dyn);
	free(cv->rinse);
	free(cv->gen_seen);
	free(cv);
	t->vars = NULL;
}

/* The shared memory's dynamic variable space, if the target made one as we expect. */
static struct udt_dynhdr *shm_dyn(struct cs_trace *t)
{
	/* (its size and geometry were checked when the memory was mapped: shm.c) */
	return t->vars && t->sh.dyn_sz == t->vars->v.dynvarsize &&
			       t->dyn_geo.chunk_sz == t->vars->v.chunk_sz
		       ? cs__shm_dyn(t)
		       : NULL;
}

struct udt_vm_mem *cs__vars_mem(struct cs_trace *t, bool live)
{
	struct cs_vars *cv = t->vars;

	if (!cv)
		return NULL;
	uint32_t slot = (uint32_t)udt_str_slot(cv->v.strsize);
	uint64_t gsz = (uint64_t)slot * cv->v.ngstrs;
	struct udt_dynhdr *dyn = cv->dyn;
	uint8_t *gstrs = cv->gstrs;
	if (live && cs__shm_usable(t)) {
		/* END (and tick-n) see what the target has, even after it exited (where the
		   checked copy of its header says: shm.c) */
		if (t->sh.gstr_off)
			gstrs = t->shm + t->sh.gstr_off;
		if (shm_dyn(t))
			dyn = shm_dyn(t);
	}
	struct udt_vm_mem *m = &cv->mem;
	*m = (struct udt_vm_mem){
		.strsize = cv->v.strsize,
		.slot_sz = slot,
		.tstrs = cv->tlocal,
		.ntstrs = cv->v.ntstrs,
		.lstrs = cv->tlocal + (uint64_t)slot * cv->v.ntstrs,
		.nlstrs = cv->v.nlstrs,
		.gstrs = gstrs,
		.ngstrs = cv->v.ngstrs,
		.scratch = cv->tlocal + (uint64_t)slot * (cv->v.ntstrs + cv->v.nlstrs),
		.scratch_sz = cv->v.scratchsize,
		.dyn = dyn,
		.dyn_sz = dyn ? cv->v.dynvarsize : 0,
		.dyn_geo = dyn && dyn != cv->dyn ? &t->dyn_geo : NULL,
		.thread_key = UDT_VM_CONSUMER_THREAD,
	};
	for (uint32_t k = 0; k < cv->v.nlstrs; k++)
		*(uint64_t *)(void *)(m->lstrs + (uint64_t)k * slot) = 0;
	m->own[0] = (struct udt_vm_region){ cv->tlocal, cv->tlocal_sz };
	m->own[1] = (struct udt_vm_region){ gstrs, gsz };
	m->own[2] = (struct udt_vm_region){ (const uint8_t *)dyn, m->dyn_sz };
	m->nown = 3;
	return m;
}

int cs__vars_str(const struct cs_action *a, struct udt_vm_ctx *vm, uint8_t *dst)
{
	uint64_t v = 0, bad = 0;

	if (a->difo.is_const) {
		size_t n = strlen(a->difo.const_str ? a->difo.const_str : "");
		n = n < a->size ? n : a->size - 1;
		memset(dst, 0, a->size);
		memcpy(dst, a->difo.const_str, n);
		return 0;
	}
	if (udt_difo_run((const void *)a->difo.bytes, vm, &v))
		return -1;
	if (udt__vm_str_out(vm->mem, v, dst, a->size, &bad) < 0) {
		vm->fault = UDT_FAULT_BADADDR;
		vm->fault_addr = bad;
		vm->fault_insn = 0;
		return -1;
	}
	return 0;
}

/* -- BEGIN's values, for the target -------------------------------------------------------- */

struct collect {
	uint8_t *buf;
	size_t cnt, cap;
	uint32_t chunk_sz;
};

static void collect_one(const struct udt_dynvar *e, void *arg)
{
	struct collect *c = arg;

	if (c->cnt == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 16;
		c->buf = udt__xreallocarray(c->buf, c->cap, c->chunk_sz);
	}
	memcpy(c->buf + c->cnt++ * c->chunk_sz, e, c->chunk_sz);
}

bool cs__vars_image(struct cs_trace *t, struct udt_vars *ret, const void **ret_gstrs,
		    size_t *ret_gstr_sz, void **ret_init, size_t *ret_init_sz)
{
	struct cs_vars *cv = t->vars;

	if (!cv)
		return false;
	struct collect c = { .chunk_sz = cv->v.chunk_sz };
	if (cv->dyn)
		udt__dyn_walk(cv->dyn, cv->v.dynvarsize, collect_one, &c);
	*ret = cv->v;
	ret->init_cnt = (uint32_t)c.cnt;
	*ret_gstrs = cv->gstrs;
	*ret_gstr_sz = udt_str_slot(cv->v.strsize) * cv->v.ngstrs;
	*ret_init = c.buf;
	*ret_init_sz = c.cnt * c.chunk_sz;
	return true;
}

/* -- Drops and cleaning ----------------------------------------------------------------------- */

static void report(struct cs_trace *t, const struct udt_dynhdr *h, uint64_t seen[3])
{
	static const enum out_drop_kind kinds[3] = { OUT_DROP_DYNVAR, OUT_DROP_DYNVAR_DIRTY,
						    OUT_DROP_DYNVAR_RINSE };
	uint64_t now[3] = { __atomic_load_n(&h->drops, __ATOMIC_RELAXED),
			    __atomic_load_n(&h->dirty_drops, __ATOMIC_RELAXED),
			    __atomic_load_n(&h->rinse_drops, __ATOMIC_RELAXED) };

	for (int i = 0; i < 3; i++) {
		if (now[i] <= seen[i])
			continue;
		out_drop(cs__out(t), kinds[i], 0, now[i] - seen[i]);
		seen[i] = now[i];
	}
}

void cs__vars_report_local(struct cs_trace *t)
{
	if (t->vars && t->vars->dyn)
		report(t, t->vars->dyn, t->vars->local_reported);
}

/* Has every thread that was inside the space at the last unlink moved on? */
static bool threads_moved_on(struct cs_trace *t)
{
	struct cs_vars *cv = t->vars;

	for (uint32_t i = 0; i < cv->gen_cnt; i++) {
		if (!(cv->gen_seen[i] & 1))
			continue;
		/* pairs with the thread's release store when it leaves */
		if (__atomic_load_n(&cs__tbuf(t, i)->dyn_gen, __ATOMIC_ACQUIRE) == cv->gen_seen[i])
			return false;
	}
	return true;
}

bool cs__vars_dirty(const struct cs_trace *t)
{
	const struct udt_dynhdr *h = shm_dyn((struct cs_trace *)t); /* (only read) */

	return h && (t->vars->rinse_cnt || __atomic_load_n(&h->dirty, __ATOMIC_RELAXED));
}

void cs__vars_work(struct cs_trace *t, bool final)
{
	struct cs_vars *cv = t->vars;
	struct udt_dynhdr *h = shm_dyn(t);

	if (!h)
		return;
	report(t, h, cv->reported);
	uint64_t now = udt__now_ns();
	if (final || now - cv->last_clean < t->o.cleanrate_ns)
		return;
	cv->last_clean = now;
	if (cv->rinse_cnt) {
		if (!threads_moved_on(t))
			return;
		udt__dyn_release(h, &t->dyn_geo, t->sh.dyn_sz, cv->rinse, cv->rinse_cnt);
		cv->rinse_cnt = 0;
		__atomic_store_n(&h->rinsing, 0, __ATOMIC_RELAXED);
	}
	if (!__atomic_load_n(&h->dirty, __ATOMIC_RELAXED))
		return;
	if (!cv->rinse)
		cv->rinse = udt__xcalloc(RINSE_MAX, sizeof(*cv->rinse));
	cv->rinse_cnt = udt__dyn_unlink(h, &t->dyn_geo, t->sh.dyn_sz, cv->rinse, RINSE_MAX);
	if (!cv->rinse_cnt)
		return;
	__atomic_store_n(&h->rinsing, cv->rinse_cnt, __ATOMIC_RELAXED);
	/*
	 * Every running thread passes a full barrier: a thread we then see
	 * outside the space (even dyn_gen) can only find the chains unlinked; one
	 * inside (odd) may hold an element until its dyn_gen changes.
	 */
	cs__barrier_all(t);
	uint32_t n = cs__tbuf_count(t);
	if (n > cv->gen_cnt) {
		free(cv->gen_seen);
		cv->gen_seen = udt__xcalloc(n, sizeof(*cv->gen_seen));
	}
	cv->gen_cnt = n;
	for (uint32_t i = 0; i < n; i++)
		cv->gen_seen[i] = __atomic_load_n(&cs__tbuf(t, i)->dyn_gen, __ATOMIC_ACQUIRE);
}
