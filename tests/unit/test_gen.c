/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the later generations of a session's enablings (abi.h,
 * struct udt_area_gen; docs/runtime.md, "Libraries loaded after the
 * attach"), with the runtime linked in and this test playing the consumer:
 * it writes the control block and the area as dtrace would, sets the
 * semaphores, and fires through udt__fire() as a probe site would. What it
 * checks: a probe of a generation appended mid-session is found once the
 * generation is published, and not before; a semaphore enabled again by a
 * newer generation (a library loaded again at the same address) gets the
 * newer ECBs; a generation that fails verification ends the session; the
 * deadman restores the semaphores and dispatch pointers of every
 * generation; udt__unregister() strikes an object's entries from every
 * generation's undo lists.
 */
#define HARNESS_MAIN
#include "tests/harness.h"

#include "runtime/internal.h"
#include "runtime/tables.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The "objects" the test enables: semaphores and dispatch pointers. */
static unsigned short sem_a, sem_b, sem_c;
static void *disp_main, *disp_lib;

static uint32_t session;

/* Appending to area 0, as the consumer lays it out (8-aligned). */
static uint32_t used;

static uint32_t put(const void *p, size_t sz)
{
	uint32_t off = (used + 7) & ~7u;

	memcpy(udt__control.areas[0] + off, p, sz);
	used = off + (uint32_t)sz;
	return off;
}

/* An undo list of n addresses (one zero word when empty). */
static uint32_t put_list(const uint64_t *list, uint32_t n)
{
	uint64_t none = 0;

	return n ? put(list, n * 8) : put(&none, 8);
}

/* An ECB of semaphore sem that traces argument arg (a direct one), chained to next. */
static struct udt_ecb direct_ecb(uint32_t epid, const void *sem, uint32_t arg, uint32_t next)
{
	struct udt_action act = { .kind = UDT_ACT_TRACE_ARG, .src = arg, .size = 8, .off = 0 };

	return (struct udt_ecb){ .size = sizeof(struct udt_ecb), .epid = epid,
				 .sem = (uint64_t)(uintptr_t)sem, .next = next,
				 .act_off = put(&act, sizeof(act)), .act_cnt = 1, .rec_size = 8,
				 .flags = UDT_ECB_DIRECT };
}

/* The hash of n ECBs: each semaphore's first ECB (index + 1), linear probing. */
static uint32_t put_hash(const struct udt_ecb *ecbs, uint32_t n, uint32_t bits)
{
	uint32_t hash[64] = { 0 }, mask = (1u << bits) - 1;

	for (uint32_t i = 0; i < n; i++) {
		uint32_t s = udt_sem_hash(ecbs[i].sem, bits);
		while (hash[s] && ecbs[hash[s] - 1].sem != ecbs[i].sem)
			s = (s + 1) & mask;
		if (!hash[s])
			hash[s] = i + 1;
	}
	return put(hash, (size_t)4 << bits);
}

/* A new session whose generation 0 enables sem_a (epid 1: arg0) and sets disp_main. */
static void start_session(void)
{
	struct udt_control *c = &udt__control;
	struct udt_area_hdr h = { .size = sizeof(h), .hash_bits = 2 };
	uint64_t sems[1] = { (uint64_t)(uintptr_t)&sem_a };
	uint64_t disps[1] = { (uint64_t)(uintptr_t)&disp_main };

	STORE_RELEASE(&c->state, UDT_STATE_IDLE);
	memset(c->areas[0], 0, UDT_AREA_SZ);
	used = sizeof(h);
	struct udt_ecb e = direct_ecb(1, &sem_a, 0, 0);
	h.ecb_cnt = 1;
	h.ecb_off = put(&e, sizeof(e));
	h.hash_off = put_hash(&e, 1, h.hash_bits);
	h.sem_cnt = 1;
	h.sem_off = put(sems, sizeof(sems));
	h.disp_cnt = 1;
	h.disp_off = put(disps, sizeof(disps));
	h.gvar_off = put(sems, 8); /* (no globals: any in-area offset) */
	h.used = used;
	memcpy(c->areas[0], &h, sizeof(h));
	c->pid = getpid();
	c->consumer_pid = getpid();
	c->heartbeat_ns = udt__now_ns();
	c->deadman_ns = 60000000000ull;
	c->bufsize = 65536;
	c->policy = UDT_POLICY_SWITCH;
	c->tbuf_max = 4;
	c->tsc_mult = 0;
	c->area = 0;
	c->session = ++session;
	STORE_RELEASE(&c->state, UDT_STATE_ACTIVE);
	disp_main = (void *)udt__fire;
	sem_a++;
}

/*
 * Append a generation of n ECBs and its undo lists after what the area
 * holds, and publish it (gen_off). Returns its offset.
 */
static uint32_t add_gen(const struct udt_ecb *ecbs, uint32_t n, const uint64_t *sems,
			uint32_t sem_cnt, const uint64_t *disps, uint32_t disp_cnt)
{
	struct udt_area_hdr *ah = (struct udt_area_hdr *)udt__control.areas[0];
	struct udt_area_gen g = { .size = sizeof(g), .prev = ah->gen_off, .ecb_cnt = n,
				  .hash_bits = 3 };

	g.gen = g.prev ? ((struct udt_area_gen *)(udt__control.areas[0] + g.prev))->gen + 1 : 1;
	g.ecb_off = put(ecbs, n * sizeof(*ecbs));
	g.hash_off = put_hash(ecbs, n, g.hash_bits);
	g.sem_cnt = sem_cnt;
	g.sem_off = put_list(sems, sem_cnt);
	g.disp_cnt = disp_cnt;
	g.disp_off = put_list(disps, disp_cnt);
	uint32_t off = put(&g, sizeof(g));
	STORE_RELEASE(&ah->gen_off, off);
	return off;
}

/* The records this thread wrote in the session, as "epid:value" words. */
static void records(char *out, size_t sz)
{
	struct udt_control *c = &udt__control;
	const uint8_t *shm = (const uint8_t *)(uintptr_t)c->shm_addr;
	size_t o = 0;

	out[0] = '\0';
	if (LOAD_ACQUIRE(&c->shm_state) != UDT_SHM_READY || c->shm_session != session)
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

TEST(generation_found_once_published)
{
	char got[512];

	start_session();
	udt__fire(&sem_a, 1, 10, 0, 0, 0);
	udt__fire(&sem_b, 2, 20, 21, 0, 0); /* enabled by no generation yet: nothing */
	CHECK_STR((records(got, sizeof(got)), got), "1:10");

	/* a library appears: sem_b, two clauses (epids 2 and 3, chained), its dispatch */
	used = (used + 63) & ~63u;
	struct udt_ecb e[2] = { direct_ecb(2, &sem_b, 0, 2), direct_ecb(3, &sem_b, 1, 0) };
	uint64_t sems[] = { (uint64_t)(uintptr_t)&sem_b }, disps[] = { (uint64_t)(uintptr_t)&disp_lib };
	add_gen(e, 2, sems, 1, disps, 1);
	disp_lib = (void *)udt__fire;
	sem_b++;
	udt__fire(&sem_b, 2, 22, 23, 0, 0);
	udt__fire(&sem_b, 2, 24, 25, 0, 0); /* (from the thread's cache) */
	udt__fire(&sem_a, 1, 11, 0, 0, 0);  /* generation 0's probe still there */
	CHECK_STR((records(got, sizeof(got)), got), "1:10 2:22 3:23 2:24 3:25 1:11");
	CHECK_EQ(udt__control.state, UDT_STATE_ACTIVE);

	/* a third generation, sem_c; and sem_a again, newer (a library loaded again in place) */
	struct udt_ecb e2[2] = { direct_ecb(4, &sem_c, 0, 0), direct_ecb(5, &sem_a, 0, 0) };
	uint64_t sems2[] = { (uint64_t)(uintptr_t)&sem_c };
	add_gen(e2, 2, sems2, 1, disps, 0);
	sem_c++;
	udt__fire(&sem_c, 1, 30, 0, 0, 0);
	udt__fire(&sem_b, 2, 26, 27, 0, 0);
	udt__fire(&sem_a, 1, 12, 0, 0, 0); /* the newest generation's ECB of sem_a */
	CHECK_STR((records(got, sizeof(got)), got), "1:10 2:22 3:23 2:24 3:25 1:11 4:30 2:26 3:27 5:12");

	/* detach as dtrace does: the semaphores it set go down again */
	STORE_RELEASE(&udt__control.state, UDT_STATE_DETACHED);
	sem_a = sem_b = sem_c = 0;
	disp_main = disp_lib = NULL;
}

TEST(bad_generation_ends_the_session)
{
	start_session();
	udt__fire(&sem_a, 1, 10, 0, 0, 0);
	/* an ECB whose chain goes backwards: the verifier refuses the generation */
	struct udt_ecb e[2] = { direct_ecb(2, &sem_b, 0, 0), direct_ecb(3, &sem_b, 1, 1) };
	uint64_t sems[] = { (uint64_t)(uintptr_t)&sem_b };
	add_gen(e, 2, sems, 1, sems, 0);
	sem_b++;
	udt__fire(&sem_b, 2, 20, 21, 0, 0);
	CHECK_EQ(udt__control.bad_session, session);
	CHECK_EQ(udt__control.bad_ecb, 1);
	CHECK_EQ(udt__control.state, UDT_STATE_DETACHED);
	/* the session's undo ran: every generation's semaphores are back */
	CHECK_EQ(sem_a, 0);
	CHECK_EQ(sem_b, 0);
	CHECK(disp_main == NULL);
}

TEST(deadman_restores_every_generation)
{
	start_session();
	uint64_t sems[] = { (uint64_t)(uintptr_t)&sem_b }, disps[] = { (uint64_t)(uintptr_t)&disp_lib };
	struct udt_ecb e = direct_ecb(2, &sem_b, 0, 0);
	add_gen(&e, 1, sems, 1, disps, 1);
	disp_lib = (void *)udt__fire;
	sem_b++;
	struct udt_ecb e2 = direct_ecb(3, &sem_c, 0, 0);
	uint64_t sems2[] = { (uint64_t)(uintptr_t)&sem_c };
	add_gen(&e2, 1, sems2, 1, disps, 0);
	sem_c += 2; /* another tracer (gdb) holds one */
	/* the consumer went silent long ago */
	udt__control.heartbeat_ns = 1;
	udt__control.deadman_ns = 1;
	udt__fire(&sem_b, 1, 1, 0, 0, 0);
	CHECK_EQ(udt__control.state, UDT_STATE_DEADMAN);
	CHECK_EQ(udt__control.deadman_session, session);
	CHECK_EQ(sem_a, 0);
	CHECK_EQ(sem_b, 0);
	CHECK_EQ(sem_c, 1);
	CHECK(disp_main == NULL);
	CHECK(disp_lib == NULL);
	sem_c = 0;
}

TEST(unregister_strikes_every_generation)
{
	static unsigned short lib_sem[2];
	static void *lib_disp;
	struct rt_tprobe pr[2] = { { .name = "one", .sem = &lib_sem[0] },
				   { .name = "two", .sem = &lib_sem[1] } };
	struct udt_table_hdr *table = rt_table_build("lib", pr, 2, &lib_disp);
	char got[512];

	REQUIRE(table != NULL);
	start_session();
	udt__register(table);
	/* two generations hold the library: its first load, then (same addresses) its second */
	struct udt_ecb e = direct_ecb(2, &lib_sem[0], 0, 0);
	uint64_t sems[] = { (uint64_t)(uintptr_t)&lib_sem[0], (uint64_t)(uintptr_t)&lib_sem[1] };
	uint64_t disps[] = { (uint64_t)(uintptr_t)&lib_disp };
	uint32_t g1 = add_gen(&e, 1, sems, 2, disps, 1);
	struct udt_ecb e2 = direct_ecb(3, &lib_sem[0], 0, 0);
	uint32_t g2 = add_gen(&e2, 1, sems, 2, disps, 1);
	lib_disp = (void *)udt__fire;
	lib_sem[0]++;
	lib_sem[1]++;
	udt__fire(&lib_sem[0], 1, 40, 0, 0, 0);
	udt__unregister(table);
	for (uint32_t off = g2; off; off = ((struct udt_area_gen *)(udt__control.areas[0] + off))->prev) {
		const struct udt_area_gen *g = (const void *)(udt__control.areas[0] + off);
		const uint64_t *s = (const void *)(udt__control.areas[0] + g->sem_off);
		const uint64_t *d = (const void *)(udt__control.areas[0] + g->disp_off);
		CHECK_EQ(s[0], 0);
		CHECK_EQ(s[1], 0);
		CHECK_EQ(d[0], 0);
	}
	(void)g1;
	/* generation 0's object is not the library's: untouched */
	const struct udt_area_hdr *ah = (const void *)udt__control.areas[0];
	CHECK_EQ(((const uint64_t *)(udt__control.areas[0] + ah->sem_off))[0],
		 (uint64_t)(uintptr_t)&sem_a);
	/* the library again, at the same place: this thread's cache kept nothing of it */
	udt__register(table);
	struct udt_ecb e3 = direct_ecb(4, &lib_sem[0], 0, 0);
	add_gen(&e3, 1, sems, 2, disps, 1);
	udt__fire(&lib_sem[0], 1, 41, 0, 0, 0);
	CHECK_STR((records(got, sizeof(got)), got), "3:40 4:41");
	/* and the detach restores what the struck lists no longer name: not the old load's */
	udt__unregister(table);
	free(table);
	STORE_RELEASE(&udt__control.state, UDT_STATE_DETACHED);
	sem_a = 0;
	disp_main = NULL;
}
