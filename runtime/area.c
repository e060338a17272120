/* SPDX-License-Identifier: MIT */
/*
 * Walking the generations of an enabling area (runtime/area.h).
 *
 * A session's enablings grow while it runs: when a library with probes the
 * script names is loaded, the consumer appends a generation (its ECBs, hash
 * and undo lists) after everything the area holds, and publishes its offset
 * in the header's gen_off; each generation's prev names the one before it,
 * down to 0 (the header's own fields are generation 0). The chain only ever
 * goes down in the area, so a walk ends even over bytes that were never
 * verified, which is what the deadman, a fork child and udt__unregister()
 * walk: they may run before any thread verified the session.
 */
#include "runtime/area.h"
#include "runtime/internal.h"

const struct udt_area_gen *udt__area_gen(const uint8_t *area, uint32_t off)
{
	const struct udt_area_gen *g = (const void *)(area + off);

	if (off < sizeof(struct udt_area_hdr) || off % 8 || !udt__in_area(off, sizeof(*g)) ||
	    LOAD_RELAXED(&g->size) != sizeof(*g) || g->prev >= off)
		return NULL;
	return g;
}

uint32_t udt__area_sites_off(const uint8_t *area)
{
	const struct udt_area_hdr *ah = (const void *)area;
	const struct udt_area_gen *g;
	/* pairs with the consumer's store of gen_off after the generation's bytes */
	uint32_t off = LOAD_ACQUIRE(&ah->gen_off);

	for (; off; off = g->prev) {
		if (!(g = udt__area_gen(area, off)))
			return UINT32_MAX;
		if (g->sites_off)
			return g->sites_off;
	}
	return ah->sites_off;
}

void udt__area_undo_lists(uint8_t *area, void (*fn)(uint64_t *list, uint32_t n, bool is_disp,
						    void *arg),
			  void *arg)
{
	struct udt_area_hdr *ah = (struct udt_area_hdr *)area;

	if (LOAD_ACQUIRE(&ah->size) != sizeof(*ah))
		return;
	/* pairs with the consumer's store of gen_off after the generation's bytes */
	uint32_t off = LOAD_ACQUIRE(&ah->gen_off);
	for (const struct udt_area_gen *g; off && (g = udt__area_gen(area, off)); off = g->prev) {
		if (udt__in_area(g->disp_off, (uint64_t)g->disp_cnt * 8) && g->disp_off % 8 == 0)
			fn((uint64_t *)(void *)(area + g->disp_off), g->disp_cnt, true, arg);
		if (udt__in_area(g->sem_off, (uint64_t)g->sem_cnt * 8) && g->sem_off % 8 == 0)
			fn((uint64_t *)(void *)(area + g->sem_off), g->sem_cnt, false, arg);
	}
	if (udt__in_area(ah->disp_off, (uint64_t)ah->disp_cnt * 8) && ah->disp_off % 8 == 0)
		fn((uint64_t *)(void *)(area + ah->disp_off), ah->disp_cnt, true, arg);
	if (udt__in_area(ah->sem_off, (uint64_t)ah->sem_cnt * 8) && ah->sem_off % 8 == 0)
		fn((uint64_t *)(void *)(area + ah->sem_off), ah->sem_cnt, false, arg);
}
