/* SPDX-License-Identifier: MIT */
/*
 * The session's string variables, scratch space and dynamic variables in
 * the shared memory (vars.c): for session.c, which lays them out, and
 * fire.c, which gives each fire its view of them.
 */
#ifndef UDT_RUNTIME_VARS_H
#define UDT_RUNTIME_VARS_H

#include "runtime/internal.h"
#include "vm/vm_mem.h"

/* The area's struct udt_vars, checked; NULL when it has none (or a bad one: *ret_bad). */
const struct udt_vars *udt__vars_of(const uint8_t *area, bool *ret_bad);
/* Bytes of each thread's strings and scratch, and of the global part; 0 without v. */
uint64_t udt__vars_tlocal_sz(const struct udt_vars *v);
uint64_t udt__vars_global_sz(const struct udt_vars *v);
/* Lay out the global part at offset at of the new shared memory m (header h). 0 or -1. */
int udt__vars_setup(struct udt_shm_hdr *h, uint8_t *m, uint64_t at, const uint8_t *area,
		    const struct udt_vars *v);
/*
 * The view of the fire of thread state ts (its buffer's) in mem, or NULL when the session has
 * no variables of these kinds; marks the thread as inside the dynamic
 * variable space (udt__dyn_leave() when the fire is done).
 */
struct udt_vm_mem *udt__vars_fire(struct udt_vm_mem *mem, struct udt_shm_hdr *shm,
				  struct udt_tslot *ts, const uint8_t *area);

#endif /* UDT_RUNTIME_VARS_H */
