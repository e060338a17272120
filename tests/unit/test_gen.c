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

#include "runtime/tables.h"
#include "tests/unit/fake_consumer.h"

#include <stdlib.h>

/* The "objects" the test enables: semaphores and dispatch pointers. */
static unsigned short sem_a, sem_b, sem_c;
static void *disp_main, *disp_lib;

/* The test's session is slot 0's. */
#define CTL FC_CTL(0)
#define AREA FC_AREA(0)

static uint32_t session;

static uint32_t put(const void *p, size_t sz)
{
	return fc_put(0, p, sz);
}

static struct udt_ecb direct_ecb(uint32_t epid, const void *sem, uint32_t arg, uint32_t next)
{
	return fc_direct_ecb(0, epid, sem, arg, next);
}

/* A new session whose generation 0 enables sem_a (epid 1: arg0) and sets disp_main. */
static void start_session(void)
{
	uint64_t sems[1] = { (uint64_t)(uintptr_t)&sem_a };
	uint64_t disps[1] = { (uint64_t)(uintptr_t)&disp_main };

	fc_begin(0);
	struct udt_ecb e = direct_ecb(1, &sem_a, 0, 0);
	session = fc_start(0, &e, 1, sems, 1, disps, 1);
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
	struct udt_area_hdr *ah = (struct udt_area_hdr *)AREA;
	struct udt_area_gen g = { .size = sizeof(g), .prev = ah->gen_off, .ecb_cnt = n,
				  .hash_bits = 3 };

	g.gen = g.prev ? ((struct udt_area_gen *)(AREA + g.prev))->gen + 1 : 1;
	g.ecb_off = put(ecbs, n * sizeof(*ecbs));
	g.hash_off = fc_put_hash(0, ecbs, n, g.hash_bits);
	g.sem_cnt = sem_cnt;
	g.sem_off = fc_put_list(0, sems, sem_cnt);
	g.disp_cnt = disp_cnt;
	g.disp_off = fc_put_list(0, disps, disp_cnt);
	uint32_t off = put(&g, sizeof(g));
	STORE_RELEASE(&ah->gen_off, off);
	return off;
}

/* The records of the session, as "epid:value" words. */
static void records(char *out, size_t sz)
{
	fc_records(0, out, sz);
}

TEST(generation_found_once_published)
{
	char got[512];

	start_session();
	udt__fire(&sem_a, 1, 10, 0, 0, 0);
	udt__fire(&sem_b, 2, 20, 21, 0, 0); /* enabled by no generation yet: nothing */
	CHECK_STR((records(got, sizeof(got)), got), "1:10");

	/* a library appears: sem_b, two clauses (epids 2 and 3, chained), its dispatch */
	fc_used[0] = (fc_used[0] + 63) & ~63u;
	struct udt_ecb e[2] = { direct_ecb(2, &sem_b, 0, 2), direct_ecb(3, &sem_b, 1, 0) };
	uint64_t sems[] = { (uint64_t)(uintptr_t)&sem_b }, disps[] = { (uint64_t)(uintptr_t)&disp_lib };
	add_gen(e, 2, sems, 1, disps, 1);
	disp_lib = (void *)udt__fire;
	sem_b++;
	udt__fire(&sem_b, 2, 22, 23, 0, 0);
	udt__fire(&sem_b, 2, 24, 25, 0, 0); /* (from the thread's cache) */
	udt__fire(&sem_a, 1, 11, 0, 0, 0);  /* generation 0's probe still there */
	CHECK_STR((records(got, sizeof(got)), got), "1:10 2:22 3:23 2:24 3:25 1:11");
	CHECK_EQ(CTL->state, UDT_STATE_ACTIVE);

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
	fc_set_state(0, UDT_STATE_DETACHED);
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
	CHECK_EQ(CTL->bad_session, session);
	CHECK_EQ(CTL->bad_ecb, 1);
	CHECK_EQ(CTL->state, UDT_STATE_DETACHED);
	CHECK_EQ(udt__control.hdr.live[0], 0);
	/* the session's undo ran: every generation's semaphores are back */
	CHECK_EQ(sem_a, 0);
	CHECK_EQ(sem_b, 0);
	CHECK(disp_main == NULL);
}

/* An ECB of sem that traces arguments first..first+n-1 (UDT_ECB_DIRECT; flags added). */
static struct udt_ecb args_ecb(uint32_t epid, const void *sem, uint32_t first, uint32_t n,
			       uint32_t flags)
{
	struct udt_action act[4];

	for (uint32_t k = 0; k < n; k++)
		act[k] = (struct udt_action){ .kind = UDT_ACT_TRACE_ARG, .src = first + k, .size = 8,
					      .off = 8 * k };
	return (struct udt_ecb){ .size = sizeof(struct udt_ecb), .epid = epid,
				 .sem = (uint64_t)(uintptr_t)sem, .act_off = put(act, n * sizeof(act[0])),
				 .act_cnt = n, .rec_size = 8 * n, .flags = UDT_ECB_DIRECT | flags };
}

/* The values of the records of epid, as "v v;" per record. */
static void values_of(uint32_t epid, char *out, size_t sz)
{
	const uint8_t *shm = (const uint8_t *)(uintptr_t)CTL->shm_addr;
	const struct udt_shm_hdr *h = (const void *)shm;
	const struct udt_tbuf *tb = (const struct udt_tbuf *)(shm + h->tbuf_off);
	size_t o = 0;

	out[0] = 0;
	for (uint64_t p = 0; p + sizeof(struct udt_rec) <= tb->off[0];) {
		const struct udt_rec *r = (const void *)(shm + h->data_off + p);
		const uint64_t *v = (const uint64_t *)(r + 1);
		for (uint32_t k = 0; r->epid == epid && k < (r->size - sizeof(*r)) / 8; k++)
			o += (size_t)snprintf(out + o, sz - o, "%llu%s", (unsigned long long)v[k],
					      k + 1 < (r->size - sizeof(*r)) / 8 ? " " : ";");
		p += r->size;
	}
}

TEST(consecutive_arguments_recorded_as_a_block)
{
	char got[256];

	start_session();
	/* arg1 and arg2, as one block (UDT_ECB_ARGS); a fire of fewer arguments than the block
	   needs records zeros for the missing ones, as each action would */
	struct udt_ecb e = args_ecb(2, &sem_b, 1, 2, UDT_ECB_ARGS);
	uint64_t sems[] = { (uint64_t)(uintptr_t)&sem_b };
	add_gen(&e, 1, sems, 1, sems, 0);
	sem_b++;
	udt__fire(&sem_b, 3, 10, 11, 12, 0);
	udt__fire(&sem_b, 2, 20, 21, 0, 0);
	udt__fire(&sem_b, 4, 30, 31, 32, 33);
	values_of(2, got, sizeof(got));
	CHECK_STR(got, "11 12;21 0;31 32;");
	CHECK_EQ(CTL->state, UDT_STATE_ACTIVE);
	sem_a = sem_b = 0;
	disp_main = NULL;
}

TEST(args_flag_refused_on_other_clauses)
{
	/* the flag on arguments out of order, and on a clause that traces cpu: the verifier
	   ends the session */
	for (int i = 0; i < 2; i++) {
		start_session();
		struct udt_ecb e = args_ecb(2, &sem_b, 1, 2, UDT_ECB_ARGS);
		struct udt_action *a = (struct udt_action *)(AREA + e.act_off);
		if (i == 0)
			a[0].src = 3; /* arg3, arg2 */
		else
			a[1] = (struct udt_action){ .kind = UDT_ACT_TRACE_VAR, .src = UDT_VAR_CPU,
						    .size = 8, .off = 8 };
		uint64_t sems[] = { (uint64_t)(uintptr_t)&sem_b };
		add_gen(&e, 1, sems, 1, sems, 0);
		sem_b++;
		udt__fire(&sem_b, 4, 10, 11, 12, 13);
		CHECK_EQ(CTL->bad_session, session);
		CHECK_EQ(CTL->state, UDT_STATE_DETACHED);
		sem_a = sem_b = 0;
		disp_main = NULL;
	}
}

TEST(direct_agg_flag_checked)
{
	/* count() by arg1 may be updated without the VM (UDT_ECB_DIRECT_AGG); by epid it may
	   not (a builtin the direct path does not read): the verifier ends that session */
	for (int i = 0; i < 2; i++) {
		start_session();
		struct udt_action key = { .kind = i ? UDT_ACT_TRACE_VAR : UDT_ACT_TRACE_ARG,
					  .src = i ? UDT_VAR_EPID : 1, .size = 8 };
		struct udt_aggdesc ad = { .size = sizeof(ad), .aggid = 1, .func = UDT_AGG_COUNT,
					  .key_cnt = 1, .key_off = put(&key, sizeof(key)),
					  .key_size = 8 };
		struct udt_action act = { .kind = UDT_ACT_AGG, .src = put(&ad, sizeof(ad)) };
		struct udt_ecb e = { .size = sizeof(e), .epid = 2, .sem = (uint64_t)(uintptr_t)&sem_b,
				     .act_off = put(&act, sizeof(act)), .act_cnt = 1,
				     .flags = UDT_ECB_NOREC | UDT_ECB_DIRECT_AGG };
		uint64_t sems[] = { (uint64_t)(uintptr_t)&sem_b };
		add_gen(&e, 1, sems, 1, sems, 0);
		sem_b++;
		udt__fire(&sem_b, 2, 10, 11, 0, 0);
		CHECK_EQ(CTL->bad_session, i ? session : 0);
		CHECK_EQ(CTL->state, i ? UDT_STATE_DETACHED : UDT_STATE_ACTIVE);
		sem_a = sem_b = 0;
		disp_main = NULL;
	}
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
	CTL->heartbeat_ns = 1;
	CTL->deadman_ns = 1;
	CTL->deadline = 2;
	udt__fire(&sem_b, 1, 1, 0, 0, 0);
	CHECK_EQ(CTL->state, UDT_STATE_DEADMAN);
	CHECK_EQ(udt__control.hdr.live[0], 0);
	CHECK_EQ(CTL->deadman_session, session);
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
	for (uint32_t off = g2; off; off = ((struct udt_area_gen *)(AREA + off))->prev) {
		const struct udt_area_gen *g = (const void *)(AREA + off);
		const uint64_t *s = (const void *)(AREA + g->sem_off);
		const uint64_t *d = (const void *)(AREA + g->disp_off);
		CHECK_EQ(s[0], 0);
		CHECK_EQ(s[1], 0);
		CHECK_EQ(d[0], 0);
	}
	(void)g1;
	/* generation 0's object is not the library's: untouched */
	const struct udt_area_hdr *ah = (const void *)AREA;
	CHECK_EQ(((const uint64_t *)(AREA + ah->sem_off))[0],
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
	fc_set_state(0, UDT_STATE_DETACHED);
	sem_a = 0;
	disp_main = NULL;
}
