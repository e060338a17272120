/* SPDX-License-Identifier: MIT */
/*
 * The unit tests' consumer: it writes a slot of the runtime's control block
 * and that slot's enabling area as dtrace would (docs/runtime.md), and reads
 * back the records, for tests linked with the runtime's objects that fire
 * through udt__fire() as probe sites do. Static helpers: a test file
 * includes it once. Each slot's session uses its area 0.
 */
#ifndef UDT_TESTS_FAKE_CONSUMER_H
#define UDT_TESTS_FAKE_CONSUMER_H

#include "runtime/internal.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define FC_CTL(slot) (&udt__control.slots[slot])
#define FC_AREA(slot) (udt__control.areas[slot][0])

/* Sessions are numbered across the slots, as consumers number them. */
static uint32_t fc_session;
/* Bytes of each slot's area laid out so far. */
static uint32_t fc_used[UDT_SLOT_MAX];

/* Slot's state, and its live byte (1 while ACTIVE), as the consumer sets them. */
static inline void fc_set_state(uint32_t slot, uint32_t st)
{
	FC_CTL(slot)->state = st;
	STORE_RELEASE(&udt__control.hdr.live[slot], st == UDT_STATE_ACTIVE);
}

/* Append sz bytes to slot's area (8-aligned); their offset. */
static inline uint32_t fc_put(uint32_t slot, const void *p, size_t sz)
{
	uint32_t off = (fc_used[slot] + 7) & ~7u;

	memcpy(FC_AREA(slot) + off, p, sz);
	fc_used[slot] = off + (uint32_t)sz;
	return off;
}

/* An undo list of n addresses (one zero word when empty). */
static inline uint32_t fc_put_list(uint32_t slot, const uint64_t *list, uint32_t n)
{
	uint64_t none = 0;

	return n ? fc_put(slot, list, n * 8) : fc_put(slot, &none, 8);
}

/* An ECB of semaphore sem that traces argument arg (a direct one), chained to next. */
static inline struct udt_ecb fc_direct_ecb(uint32_t slot, uint32_t epid, const void *sem,
					   uint32_t arg, uint32_t next)
{
	struct udt_action act = { .kind = UDT_ACT_TRACE_ARG, .src = arg, .size = 8, .off = 0 };

	return (struct udt_ecb){ .size = sizeof(struct udt_ecb), .epid = epid,
				 .sem = (uint64_t)(uintptr_t)sem, .next = next,
				 .act_off = fc_put(slot, &act, sizeof(act)), .act_cnt = 1,
				 .rec_size = 8, .flags = UDT_ECB_DIRECT };
}

/* The hash of n ECBs: each semaphore's first ECB (index + 1), linear probing. */
static inline uint32_t fc_put_hash(uint32_t slot, const struct udt_ecb *ecbs, uint32_t n,
				   uint32_t bits)
{
	uint32_t hash[64] = { 0 }, mask = (1u << bits) - 1;

	for (uint32_t i = 0; i < n; i++) {
		uint32_t s = udt_sem_hash(ecbs[i].sem, bits);
		while (hash[s] && ecbs[hash[s] - 1].sem != ecbs[i].sem)
			s = (s + 1) & mask;
		if (!hash[s])
			hash[s] = i + 1;
	}
	return fc_put(slot, hash, (size_t)4 << bits);
}

/* A new area for slot: its session ended, the area empty but for its header's room. */
static inline void fc_begin(uint32_t slot)
{
	fc_set_state(slot, UDT_STATE_IDLE);
	memset(FC_AREA(slot), 0, UDT_AREA_SZ);
	fc_used[slot] = sizeof(struct udt_area_hdr);
}

/*
 * Start slot's session (after fc_begin() and the ECBs): generation 0 of the
 * n ECBs, its undo lists, the parameters, then the state. Its number.
 */
static inline uint32_t fc_start(uint32_t slot, const struct udt_ecb *ecbs, uint32_t n,
				const uint64_t *sems, uint32_t sem_cnt, const uint64_t *disps,
				uint32_t disp_cnt)
{
	struct udt_control *c = FC_CTL(slot);
	struct udt_area_hdr h = { .size = sizeof(h), .hash_bits = 3 };

	h.ecb_cnt = n;
	h.ecb_off = fc_put(slot, ecbs, n * sizeof(*ecbs));
	h.hash_off = fc_put_hash(slot, ecbs, n, h.hash_bits);
	h.sem_cnt = sem_cnt;
	h.sem_off = fc_put_list(slot, sems, sem_cnt);
	h.disp_cnt = disp_cnt;
	h.disp_off = fc_put_list(slot, disps, disp_cnt);
	h.gvar_off = h.sem_off; /* (no globals: any in-area offset) */
	h.used = fc_used[slot];
	memcpy(FC_AREA(slot), &h, sizeof(h));
	c->pid = getpid();
	c->consumer_pid = getpid();
	c->heartbeat_ns = udt__now_ns();
	c->deadman_ns = 60000000000ull;
	c->deadline = c->heartbeat_ns + c->deadman_ns; /* (tsc_mult 0: the clock reads ns) */
	c->bufsize = 65536;
	c->policy = UDT_POLICY_SWITCH;
	c->tbuf_max = 4;
	c->tsc_mult = 0;
	c->area = 0;
	c->session = ++fc_session;
	fc_set_state(slot, UDT_STATE_ACTIVE);
	return c->session;
}

/* The records of slot's session (its current one), as "epid:value" words. */
static inline void fc_records(uint32_t slot, char *out, size_t sz)
{
	struct udt_control *c = FC_CTL(slot);
	const uint8_t *shm = (const uint8_t *)(uintptr_t)c->shm_addr;
	size_t o = 0;

	out[0] = '\0';
	if (LOAD_ACQUIRE(&c->shm_state) != UDT_SHM_READY || c->shm_session != c->session)
		return;
	const struct udt_shm_hdr *h = (const void *)shm;
	for (uint32_t i = 0; i < h->tbuf_cnt && i < h->tbuf_max; i++) {
		const struct udt_tbuf *tb = (const struct udt_tbuf *)(shm + h->tbuf_off) + i;
		const uint8_t *half = shm + h->data_off + (uint64_t)i * 2 * h->bufsize;
		for (uint64_t p = 0; p + sizeof(struct udt_rec) <= tb->off[0];) {
			const struct udt_rec *r = (const void *)(half + p);
			uint64_t v;
			memcpy(&v, r + 1, 8);
			o += (size_t)snprintf(out + o, sz - o, "%s%u:%llu", o ? " " : "", r->epid,
					      (unsigned long long)v);
			p += r->size;
		}
	}
}

#endif /* UDT_TESTS_FAKE_CONSUMER_H */
