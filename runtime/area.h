/* SPDX-License-Identifier: MIT */
/*
 * The generations of an enabling area (abi.h, struct udt_area_gen): their
 * extent-checked headers and the undo lists of all of them, for the code
 * that restores what a session set (session.c) or strikes what an unloaded
 * object held (registry.c). Neither may trust an area it has not verified:
 * the deadman can end a session before any of its generations was.
 */
#ifndef UDT_RUNTIME_AREA_H
#define UDT_RUNTIME_AREA_H

#include <stdbool.h>
#include <stdint.h>

#include "abi/abi.h"

/* Is [off, off + len) within an area? */
static inline bool udt__in_area(uint64_t off, uint64_t len)
{
	return off <= UDT_AREA_SZ && len <= UDT_AREA_SZ - off;
}

/*
 * The generation at offset off of area when its header lies in the area,
 * after the area's header, 8-aligned, and its prev is lower than off (so
 * that a walk down the chain ends); else NULL. Checks nothing else.
 */
const struct udt_area_gen *udt__area_gen(const uint8_t *area, uint32_t off);
/*
 * The offset of the session's sites table (struct udt_sites) in area: the
 * newest generation's that has one, else the header's; 0: none,
 * UINT32_MAX: a generation of the chain is bad.
 */
uint32_t udt__area_sites_off(const uint8_t *area);

/*
 * Call fn(list, n, is_disp, arg) on each undo list of area that lies in it:
 * generation 0's semaphores and dispatch pointers (the header's), then each
 * later generation's, newest first (the dispatch pointers of each before its
 * semaphores). Nothing when the area's header is not one.
 */
void udt__area_undo_lists(uint8_t *area, void (*fn)(uint64_t *list, uint32_t n, bool is_disp,
						    void *arg),
			  void *arg);

#endif /* UDT_RUNTIME_AREA_H */
