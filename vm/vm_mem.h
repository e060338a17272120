/* SPDX-License-Identifier: MIT */
/*
 * The memory a running DIFO may use beyond its registers: string variables,
 * the fire's scratch space and the dynamic variable space (docs/runtime.md,
 * "Variables"; docs/bytecode.md §3.11). One struct udt_vm_mem per fire, made
 * by the runtime from the session's shared memory (or by the consumer for
 * BEGIN and END from its own), pointed to by every udt_vm_ctx of the fire.
 *
 * Strings are addresses. Those in memory the runtime owns (the regions in
 * own[], and the DIFO being run) are read in place, bounded by the region
 * and by strsize; any other address is the process's, and its string is
 * copied into the scratch space with fault-safe copies first. So a
 * subroutine never faults the process, whatever address a DIFO gives it.
 */
#ifndef UDT_VM_VM_MEM_H
#define UDT_VM_VM_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "abi/abi.h"
#include "vm/vm.h"

struct udt_vm_region {
	const uint8_t *p;
	uint64_t sz;
};

struct udt_vm_mem {
	uint32_t strsize;          /* bytes of a string, its NUL included */
	uint32_t slot_sz;          /* udt_str_slot(strsize): a string variable's bytes */
	uint8_t *tstrs, *lstrs, *gstrs; /* the string variables of each scope */
	uint32_t ntstrs, nlstrs, ngstrs;
	uint8_t *scratch;          /* the scratch space: scratch_used of scratch_sz bytes taken */
	uint64_t scratch_sz;
	uint64_t scratch_used;
	struct udt_dynhdr *dyn;    /* the dynamic variable space, or NULL */
	uint64_t dyn_sz;
	/* its geometry as the reader trusts it: the consumer's checked copy of a target's
	   header (docs/runtime.md, "Trust"); NULL: dyn's own */
	const struct udt_dynhdr *dyn_geo;
	/* a futex woken when the space's first deleted element awaits the cleaner (the
	   consumer's pacing: docs/runtime.md), or NULL */
	uint32_t *wake;
	uint32_t thread_key;       /* the thread, in the keys of self-> associative arrays */
	uint64_t strtok;           /* strtok()'s position, 0 when none; lives for the fire */
	uint64_t strtok_end;       /* and the end of its string */
	struct udt_vm_region own[4]; /* memory read in place: the runtime's own */
	unsigned nown;
};

/* The consumer's thread in keys of self-> arrays (BEGIN and END): no thread buffer has it. */
#define UDT_VM_CONSUMER_THREAD 0xffffffffu

/*
 * The subroutines (vm_str.c) and the variables (vm_str.c, dynvar.c), for
 * the interpreter. Each returns 0, or a fault (enum udt_fault) with *bad the
 * address it concerns. d is the DIFO being run (its string table is read in
 * place). Async-signal-safe.
 */
uint32_t udt__vm_call(struct udt_vm_ctx *ctx, const struct udt_difo *d, uint32_t subr,
		      const uint64_t *args, uint32_t argc, uint64_t *ret, uint64_t *bad);
/*
 * vm_net.c: the bytes of the address inet_ntoa(), inet_ntoa6(), inet_ntop()
 * or link_ntop() (subr) reads, given the address family or hardware type
 * kind (0: not one of theirs), and its text (at most UDT_NET_TEXT_MAX
 * bytes, no NUL) into out: its length.
 */
#define UDT_NET_ADDR_MAX 20
#define UDT_NET_TEXT_MAX 64
uint32_t udt__vm_net_size(uint32_t subr, uint64_t kind);
size_t udt__vm_net_text(uint32_t subr, uint64_t kind, bool embed, const uint8_t *a, char *out);
/* LDTS/LDLS/LDGS and STTS/STLS/STGS: op is the opcode. */
uint32_t udt__vm_strvar(struct udt_vm_ctx *ctx, const struct udt_difo *d, uint8_t op,
			uint32_t idx, uint64_t *reg, uint64_t *bad);
uint32_t udt__vm_dynvar(struct udt_vm_ctx *ctx, const struct udt_difo *d, bool store,
			uint32_t imm, const uint64_t *keys, uint32_t nkeys, uint64_t *val,
			uint64_t refsize, uint64_t *bad);
/* Is [addr, addr + size) inside the sz bytes at base (NULL: nothing)? */
static inline bool udt__vm_in_range(const void *base, uint64_t sz, uint64_t addr, uint64_t size)
{
	uint64_t b = (uint64_t)(uintptr_t)base;

	return base && addr >= b && addr - b <= sz && size <= sz - (addr - b);
}

/*
 * May a DIFO write [addr, addr + size): inside the scratch space the fire
 * took so far (alloca()'s memory), or the variables' memory of the thread,
 * the fire or the session? (Never the process's.) Inline: STX's check.
 */
static inline bool udt__vm_writable(const struct udt_vm_mem *m, uint64_t addr, uint64_t size)
{
	return udt__vm_in_range(m->tstrs, (uint64_t)m->ntstrs * m->slot_sz, addr, size) ||
	       udt__vm_in_range(m->scratch, m->scratch_used, addr, size) ||
	       udt__vm_in_range(m->lstrs, (uint64_t)m->nlstrs * m->slot_sz, addr, size) ||
	       udt__vm_in_range(m->gstrs, (uint64_t)m->ngstrs * m->slot_sz, addr, size);
}

/* Is [addr, addr + size) in memory the runtime owns (own[]), read in place? Inline: LDX's. */
static inline bool udt__vm_owned(const struct udt_vm_mem *m, uint64_t addr, uint64_t size)
{
	for (unsigned i = 0; i < m->nown && i < 4; i++)
		if (udt__vm_in_range(m->own[i].p, m->own[i].sz, addr, size))
			return true;
	return false;
}
/*
 * Copy size bytes at src to dst: in place from the runtime's own memory,
 * fault-safe from the process's. 0, or -EFAULT with *bad the first address
 * that could not be read.
 */
int udt__vm_mem_in(const struct udt_vm_mem *m, uint64_t src, uint8_t *dst, uint64_t size,
		   uint64_t *bad);
/* STRCMP's comparison: 0 with *ret -1, 0, 1, or a fault. */
uint32_t udt__vm_strcmp(struct udt_vm_ctx *ctx, const struct udt_difo *d, uint64_t a,
			uint64_t b, uint64_t max_a, uint64_t max_b, int *ret, uint64_t *bad);
/*
 * Copy the string at src into dst (at most size - 1 bytes and its NUL), for
 * a record or a key: in place from the runtime's memory, fault-safe from the
 * process's. dst is a slot of size bytes rounded up to 8. Only the string,
 * its NUL and at most zeros to the next multiple of 8 are written: a key's
 * caller pads the rest of its word, and a record's bytes past the NUL are
 * the consumer's to ignore (it zeroes them in its copy: docs/runtime.md,
 * "BEGIN, END and output"). mem may be NULL (then everything is the
 * process's).
 * The string's length, or -EFAULT with *bad the address that could not be
 * read.
 */
long udt__vm_str_out(const struct udt_vm_mem *mem, uint64_t src, uint8_t *dst, uint32_t size,
		     uint64_t *bad);

/*
 * The string at addr into dst: size bytes, zero-filled past its NUL, at most
 * strsize - 1 of them (a key's or a variable's copy). 0 or a fault.
 */
uint32_t udt__vm_str_key(struct udt_vm_ctx *ctx, const struct udt_difo *d, uint64_t addr,
			 uint8_t *dst, uint32_t size, uint64_t *bad);

/* The subroutines' argument counts, for the verifier. */
void udt__vm_call_args(uint32_t subr, uint32_t *ret_min, uint32_t *ret_max);

/* -- The dynamic variable space (dynvar.c), shared by the runtime and the consumer -- */

/*
 * Every function takes the space's size, and checks the geometry (from geo
 * where it takes one, else from h itself) against it once; every index and
 * every chain walk is then bounded by that geometry, whatever the space holds.
 */
/* Lay out an empty space of size bytes with elements of chunk_sz bytes. 0, or -EINVAL. */
int udt__dyn_init(struct udt_dynhdr *h, uint64_t size, uint32_t chunk_sz);
/* Is h the geometry of a space of sz bytes as udt__dyn_init() makes them? */
bool udt__dyn_geometry_ok(const struct udt_dynhdr *h, uint64_t sz);
/* The smallest space udt__dyn_init() lays out with elements of chunk_sz bytes: one of them. */
uint64_t udt__dyn_min_size(uint32_t chunk_sz);
/* Add a copy of element e (chunk_sz bytes, from BEGIN) to a space no thread uses yet. */
int udt__dyn_add(struct udt_dynhdr *h, uint64_t sz, const struct udt_dynvar *e);
/* Call fn on every live element. */
void udt__dyn_walk(struct udt_dynhdr *h, uint64_t sz,
		   void (*fn)(const struct udt_dynvar *e, void *arg), void *arg);
/*
 * The consumer's cleaning (consumer/vars.c): unlink the deleted elements
 * (at most max, their index + 1 into out), and later, once no thread can
 * hold them, give them back. Only one cleaner may run at a time.
 */
uint32_t udt__dyn_unlink(struct udt_dynhdr *h, const struct udt_dynhdr *geo, uint64_t sz,
			 uint32_t *out, uint32_t max);
void udt__dyn_release(struct udt_dynhdr *h, const struct udt_dynhdr *geo, uint64_t sz,
		      const uint32_t *idx, uint32_t cnt);

/*
 * A thread announces that it may hold elements (odd dyn_gen) before it looks
 * at the space, and that it holds none any more after: the consumer frees
 * an unlinked element once every thread that was inside has moved on. The
 * store before the loads needs a full barrier, which the consumer's
 * membarrier() supplies (or the thread's own fence: UDT_CTL_FENCE), as for
 * a record's busy flag (record.c).
 */
static inline void udt__dyn_enter(struct udt_tbuf *tb, bool fence)
{
	uint32_t g = __atomic_load_n(&tb->dyn_gen, __ATOMIC_RELAXED);

	__atomic_store_n(&tb->dyn_gen, g | 1, __ATOMIC_RELAXED);
	if (fence)
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
	else
		__asm__ __volatile__("" ::: "memory");
}

static inline void udt__dyn_leave(struct udt_tbuf *tb)
{
	uint32_t g = __atomic_load_n(&tb->dyn_gen, __ATOMIC_RELAXED);

	/* pairs with the consumer's acquire load: our reads of elements are done */
	__atomic_store_n(&tb->dyn_gen, (g | 1) + 1, __ATOMIC_RELEASE);
}

#endif /* UDT_VM_VM_MEM_H */
