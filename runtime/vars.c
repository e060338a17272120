/* SPDX-License-Identifier: MIT */
/*
 * The session's string variables, scratch space and dynamic variables in
 * the shared memory (docs/runtime.md, "Variables"): their layout when the
 * memory is made (session.c calls in), and each fire's view of them, a
 * struct udt_vm_mem (fire.c calls in).
 *
 * After the global variables, the shared memory holds the global string
 * slots (from the area's initial values: what BEGIN left), then the dynamic
 * variable space (BEGIN's elements added to it before any thread can see
 * it). Each thread buffer i has tlocal_sz bytes at tlocal_off + i *
 * tlocal_sz: its self-> string slots, its this-> string slots, its scratch.
 * A session without string variables and associative arrays has none of
 * this, and its fires build no view (they pay nothing for it).
 */
#include "runtime/vars.h"

#include <string.h>

/* The cap on dynvarsize: the space is sparse memory, but a typo should not map terabytes. */
#define DYNVAR_MAX (16ull << 30)

const struct udt_vars *udt__vars_of(const uint8_t *area, bool *ret_bad)
{
	const struct udt_area_hdr *ah = (const void *)area;
	const struct udt_vars *v;

	*ret_bad = false;
	if (!ah->vars_off)
		return NULL;
	v = (const void *)(area + ah->vars_off);
	uint64_t slot = udt_str_slot(v->strsize);
	uint64_t chunk_max = sizeof(struct udt_dynvar) + 8 +
			     UDT_DV_MAX_KEYS * (((uint64_t)v->strsize + 7) & ~7ull) + slot;
	if (ah->vars_off % 8 || (uint64_t)ah->vars_off + sizeof(*v) > UDT_AREA_SZ ||
	    v->size != sizeof(*v) || !v->strsize || v->strsize > UDT_STRSIZE_MAX ||
	    v->scratchsize > UDT_SCRATCH_MAX || v->scratchsize % 8 || v->ntstrs > UDT_MAX_TVARS ||
	    v->nlstrs > UDT_MAX_LOCALS || v->ngstrs > UDT_MAX_GVARS || v->gstr_off % 8 ||
	    (uint64_t)v->gstr_off + v->ngstrs * slot > UDT_AREA_SZ ||
	    v->dynvarsize > DYNVAR_MAX || v->dynvarsize % 8 ||
	    (v->dynvarsize && (v->chunk_sz % 8 || v->chunk_sz < sizeof(struct udt_dynvar) + 8 ||
			       v->chunk_sz > chunk_max)) ||
	    v->init_off % 8 ||
	    (uint64_t)v->init_off + (uint64_t)v->init_cnt * v->chunk_sz > UDT_AREA_SZ) {
		*ret_bad = true;
		return NULL;
	}
	return v;
}

uint64_t udt__vars_tlocal_sz(const struct udt_vars *v)
{
	if (!v)
		return 0;
	uint64_t sz = udt_str_slot(v->strsize) * (v->ntstrs + v->nlstrs) + v->scratchsize;
	/* a page apiece: threads never share one (and dynamic variables need scratch) */
	return sz ? (sz + 4095) & ~4095ull : 4096;
}

uint64_t udt__vars_global_sz(const struct udt_vars *v)
{
	if (!v)
		return 0;
	uint64_t gstrs = (udt_str_slot(v->strsize) * v->ngstrs + 63) & ~63ull;
	return gstrs + v->dynvarsize;
}

int udt__vars_setup(struct udt_shm_hdr *h, uint8_t *m, uint64_t at, const uint8_t *area,
		    const struct udt_vars *v)
{
	if (!v)
		return 0;
	uint64_t slot = udt_str_slot(v->strsize);
	uint64_t gstrs = (slot * v->ngstrs + 63) & ~63ull;

	h->gstr_off = at;
	memcpy(m + at, area + v->gstr_off, slot * v->ngstrs);
	if (v->dynvarsize) {
		struct udt_dynhdr *dyn = (void *)(m + at + gstrs);

		h->dyn_off = at + gstrs;
		h->dyn_sz = v->dynvarsize;
		if (udt__dyn_init(dyn, v->dynvarsize, v->chunk_sz))
			return -1;
		/* BEGIN's elements; a bad one is left out (the consumer made them all alike) */
		for (uint32_t i = 0; i < v->init_cnt; i++)
			(void)udt__dyn_add(dyn, v->dynvarsize, (const void *)(area + v->init_off +
							       (uint64_t)i * v->chunk_sz));
	}
	return 0;
}

struct udt_vm_mem *udt__vars_fire(struct udt_vm_mem *mem, struct udt_shm_hdr *shm,
				  struct udt_tslot *ts, const uint8_t *area)
{
	const struct udt_area_hdr *ah = (const void *)area;
	struct udt_tbuf *tb = ts->tb;

	if (!ah->vars_off || !shm->tlocal_sz || !ts->tlocal)
		return NULL;
	/* (the area was checked by verify_area(), the shared memory made by us) */
	const struct udt_vars *v = (const void *)(area + ah->vars_off);
	uint8_t *tl = ts->tlocal;
	uint32_t slot = (uint32_t)udt_str_slot(v->strsize);

	mem->strsize = v->strsize;
	mem->slot_sz = slot;
	mem->tstrs = tl;
	mem->ntstrs = v->ntstrs;
	mem->lstrs = tl + (uint64_t)slot * v->ntstrs;
	mem->nlstrs = v->nlstrs;
	mem->gstrs = ts->gstrs;
	mem->ngstrs = v->ngstrs;
	mem->scratch = mem->lstrs + (uint64_t)slot * v->nlstrs;
	mem->scratch_sz = v->scratchsize;
	mem->scratch_used = 0;
	mem->dyn = shm->dyn_sz ? (struct udt_dynhdr *)(void *)((uint8_t *)shm + shm->dyn_off) : NULL;
	mem->dyn_sz = shm->dyn_sz;
	mem->dyn_geo = NULL; /* (its own header: the runtime trusts its own process) */
	mem->wake = &shm->wake;
	mem->thread_key = tb->owner; /* (never a previous owner of the buffer's) */
	mem->strtok = 0;
	mem->strtok_end = 0;
	/* this-> strings start unset at every fire, as this-> integers start at 0 */
	for (uint32_t k = 0; k < v->nlstrs; k++)
		*(uint64_t *)(void *)(mem->lstrs + (uint64_t)k * slot) = 0;
	mem->own[0] = (struct udt_vm_region){ tl, shm->tlocal_sz };
	mem->own[1] = (struct udt_vm_region){ mem->gstrs, (uint64_t)slot * v->ngstrs };
	mem->own[2] = (struct udt_vm_region){ (const uint8_t *)mem->dyn, mem->dyn_sz };
	mem->own[3] = (struct udt_vm_region){ area, UDT_AREA_SZ };
	mem->nown = 4;
	if (mem->dyn)
		udt__dyn_enter(tb, LOAD_RELAXED(&udt__ctl.hdr.flags) & UDT_CTL_FENCE);
	return mem;
}
