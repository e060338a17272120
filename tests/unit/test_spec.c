/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the speculative buffers (vm/spec.c): speculation(),
 * speculate(), commit() and discard() one at a time, their states and
 * failures as DTrace counts them, and threads speculating into a
 * speculation while another commits it.
 */
#define HARNESS_MAIN
#include "tests/harness.h"

#include "vm/spec.h"

#include <pthread.h>
#include <sched.h>

struct table {
	struct udt_spectab t;
	uint64_t counts[3];
};

static void table_init(struct table *tb, uint32_t n, uint64_t size)
{
	void *m = NULL;

	memset(tb, 0, sizeof(*tb));
	if (posix_memalign(&m, 64, n * sizeof(struct udt_spec)))
		abort();
	memset(m, 0, n * sizeof(struct udt_spec));
	tb->t = (struct udt_spectab){ .spec = m, .n = n, .data = calloc(n, size), .size = size,
				      .drops = &tb->counts[0], .busy = &tb->counts[1],
				      .unavail = &tb->counts[2] };
}

static void table_free(struct table *tb)
{
	free(tb->t.spec);
	free(tb->t.data);
}

/* A sink that keeps what it is given. */
struct got {
	uint8_t buf[4096];
	uint64_t len;
	int calls;
};

static bool keep(void *arg, const uint8_t *recs, uint64_t len)
{
	struct got *g = arg;

	if (g->len + len <= sizeof(g->buf))
		memcpy(g->buf + g->len, recs, len);
	g->len += len;
	g->calls++;
	return true;
}

/* A record of ours: the header and one value. */
static int put(struct table *tb, uint64_t id, uint32_t epid, uint64_t val)
{
	struct udt_spec_rec r;
	int rv = udt__spec_reserve(&tb->t, id, sizeof(struct udt_rec) + 8, &r);

	if (rv != UDT_SPEC_OK)
		return rv;
	r.rec->epid = epid;
	memcpy(r.rec + 1, &val, 8);
	udt__spec_publish(&r, true);
	return rv;
}

TEST(speculation_hands_out_ids_then_fails_unavailable)
{
	struct table tb;

	table_init(&tb, 2, 256);
	CHECK_EQ(udt__spec_alloc(&tb.t), 1);
	CHECK_EQ(udt__spec_alloc(&tb.t), 2);
	CHECK_EQ(udt__spec_alloc(&tb.t), 0);
	CHECK_EQ(tb.counts[2], 1); /* no speculative buffer available */
	CHECK_EQ(tb.counts[1], 0);
	/* a discard frees it at once when no thread writes into it */
	CHECK_EQ(udt__spec_end(&tb.t, 2, false, NULL, NULL), UDT_SPEC_OK);
	CHECK_EQ(udt__spec_alloc(&tb.t), 2);
	CHECK_EQ(udt__spec_alloc(NULL), 0);
	table_free(&tb);
}

TEST(commit_hands_the_records_over_in_order_and_frees)
{
	struct table tb;
	struct got g = { 0 };

	table_init(&tb, 1, 256);
	uint64_t id = udt__spec_alloc(&tb.t);
	REQUIRE_EQ(id, 1);
	CHECK_EQ(put(&tb, id, 7, 100), UDT_SPEC_OK);
	CHECK_EQ(put(&tb, id, 8, 200), UDT_SPEC_OK);
	CHECK_EQ(udt__spec_end(&tb.t, id, true, keep, &g), UDT_SPEC_OK);
	REQUIRE_EQ(g.len, 64);
	const struct udt_rec *r0 = (const void *)g.buf, *r1 = (const void *)(g.buf + 32);
	CHECK_EQ(r0->size, 32);
	CHECK_EQ(r0->epid, 7);
	CHECK_EQ(*(const uint64_t *)(r0 + 1), 100);
	CHECK_EQ(r1->epid, 8);
	CHECK_EQ(*(const uint64_t *)(r1 + 1), 200);
	/* free again, empty and zeroed */
	CHECK_EQ(tb.t.spec[0].state, UDT_SPEC_INACTIVE);
	CHECK_EQ(tb.t.spec[0].off, 0);
	CHECK_EQ(tb.t.data[0], 0);
	/* committed: a second commit, a discard or a speculate are silently nothing */
	CHECK_EQ(udt__spec_end(&tb.t, id, true, keep, &g), UDT_SPEC_NONE);
	CHECK_EQ(udt__spec_end(&tb.t, id, false, NULL, NULL), UDT_SPEC_NONE);
	CHECK_EQ(put(&tb, id, 9, 300), UDT_SPEC_NONE);
	CHECK_EQ(g.calls, 1);
	table_free(&tb);
}

TEST(discard_throws_the_records_away)
{
	struct table tb;
	struct got g = { 0 };

	table_init(&tb, 1, 256);
	uint64_t id = udt__spec_alloc(&tb.t);
	CHECK_EQ(put(&tb, id, 7, 100), UDT_SPEC_OK);
	CHECK_EQ(udt__spec_end(&tb.t, id, false, keep, &g), UDT_SPEC_OK);
	CHECK_EQ(g.calls, 0);
	id = udt__spec_alloc(&tb.t);
	REQUIRE_EQ(id, 1);
	CHECK_EQ(udt__spec_end(&tb.t, id, true, keep, &g), UDT_SPEC_OK);
	CHECK_EQ(g.calls, 0); /* the new one was empty */
	table_free(&tb);
}

TEST(ids_zero_and_past_the_table)
{
	struct table tb;
	struct udt_spec_rec r;

	table_init(&tb, 2, 256);
	CHECK_EQ(udt__spec_reserve(&tb.t, 0, 32, &r), UDT_SPEC_NONE);
	CHECK_EQ(udt__spec_reserve(&tb.t, 3, 32, &r), UDT_SPEC_BADID);
	CHECK_EQ(udt__spec_reserve(&tb.t, (uint64_t)-1, 32, &r), UDT_SPEC_BADID);
	CHECK_EQ(udt__spec_end(&tb.t, 0, true, NULL, NULL), UDT_SPEC_NONE);
	CHECK_EQ(udt__spec_end(&tb.t, 3, true, NULL, NULL), UDT_SPEC_BADID);
	/* an inactive one takes nothing and counts nothing */
	CHECK_EQ(udt__spec_reserve(&tb.t, 1, 32, &r), UDT_SPEC_NONE);
	CHECK_EQ(tb.counts[0] + tb.counts[1] + tb.counts[2], 0);
	CHECK_EQ(tb.t.spec[0].writers, 0);
	table_free(&tb);
}

TEST(a_full_buffer_counts_speculative_drops)
{
	struct table tb;
	struct got g = { 0 };

	table_init(&tb, 1, 64);
	uint64_t id = udt__spec_alloc(&tb.t);
	CHECK_EQ(put(&tb, id, 1, 1), UDT_SPEC_OK);
	CHECK_EQ(put(&tb, id, 2, 2), UDT_SPEC_OK);
	CHECK_EQ(put(&tb, id, 3, 3), UDT_SPEC_NONE);
	CHECK_EQ(tb.counts[0], 1);
	/* the drops do not keep it from being committed */
	CHECK_EQ(udt__spec_end(&tb.t, id, true, keep, &g), UDT_SPEC_OK);
	CHECK_EQ(g.len, 64);
	table_free(&tb);
}

TEST(a_commit_while_a_thread_writes_is_deferred_and_busy)
{
	struct table tb;
	struct got g = { 0 };
	struct udt_spec_rec r;

	table_init(&tb, 1, 256);
	uint64_t id = udt__spec_alloc(&tb.t);
	CHECK_EQ(put(&tb, id, 1, 10), UDT_SPEC_OK);
	REQUIRE_EQ(udt__spec_reserve(&tb.t, id, 40, &r), UDT_SPEC_OK); /* being written */
	r.rec->epid = 2;
	CHECK_EQ(udt__spec_end(&tb.t, id, true, keep, &g), UDT_SPEC_DEFERRED);
	CHECK_EQ(g.calls, 0);
	CHECK_EQ(udt__spec_complete(&tb.t, 0), 32); /* the first record only */
	/* busy: speculation() says so */
	CHECK_EQ(udt__spec_alloc(&tb.t), 0);
	CHECK_EQ(tb.counts[1], 1);
	/* a late speculate() into it writes nothing */
	CHECK_EQ(put(&tb, id, 3, 30), UDT_SPEC_NONE);
	CHECK(!udt__spec_finish(&tb.t, 0, true, keep, &g));
	CHECK(!udt__spec_finish(&tb.t, 0, false, NULL, NULL)); /* not a discard */
	udt__spec_publish(&r, true);
	CHECK(udt__spec_finish(&tb.t, 0, true, keep, &g));
	CHECK_EQ(g.len, 72);
	CHECK_EQ(((const struct udt_rec *)(const void *)(g.buf + 32))->epid, 2);
	CHECK_EQ(udt__spec_alloc(&tb.t), 1);
	table_free(&tb);
}

TEST(an_abandoned_record_is_a_pad)
{
	struct table tb;
	struct got g = { 0 };
	struct udt_spec_rec r;

	table_init(&tb, 1, 256);
	uint64_t id = udt__spec_alloc(&tb.t);
	REQUIRE_EQ(udt__spec_reserve(&tb.t, id, 40, &r), UDT_SPEC_OK);
	udt__spec_publish(&r, false);
	CHECK_EQ(put(&tb, id, 5, 50), UDT_SPEC_OK);
	CHECK_EQ(udt__spec_end(&tb.t, id, true, keep, &g), UDT_SPEC_OK);
	REQUIRE_EQ(g.len, 72);
	CHECK_EQ(((const struct udt_rec *)(const void *)g.buf)->epid, UDT_EPID_PAD);
	CHECK_EQ(((const struct udt_rec *)(const void *)g.buf)->size, 40);
	table_free(&tb);
}

/* -- Threads ------------------------------------------------------------------------------ */

#define WRITERS 3
#define PER_WRITER 5000

static struct table stress;
static uint64_t current_id;        /* the speculation the writers write into */
static int writers_done;
static uint64_t published[WRITERS];

static void *writer(void *arg)
{
	long w = (long)arg;

	for (uint64_t seq = 0; seq < PER_WRITER;) {
		uint64_t id = __atomic_load_n(&current_id, __ATOMIC_ACQUIRE);
		struct udt_spec_rec r;
		if (udt__spec_reserve(&stress.t, id, sizeof(struct udt_rec) + 16, &r) != UDT_SPEC_OK)
			continue; /* committed under us, or full: try the next one */
		/* a value and its check, written between reservation and publication */
		uint64_t v[2] = { (uint64_t)w << 32 | seq, ~((uint64_t)w << 32 | seq) };
		r.rec->epid = (uint32_t)w + 1;
		memcpy(r.rec + 1, v, 16);
		if (seq % 7 == 0)
			sched_yield(); /* now and then, be preempted mid-record */
		udt__spec_publish(&r, true);
		published[w]++;
		seq++;
	}
	__atomic_fetch_add(&writers_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

struct seen {
	uint8_t *bits[WRITERS];
	uint64_t records, torn, twice;
};

static bool check_sink(void *arg, const uint8_t *recs, uint64_t len)
{
	struct seen *s = arg;

	for (uint64_t pos = 0; pos < len;) {
		const struct udt_rec *r = (const void *)(recs + pos);
		uint64_t v[2];
		if (r->size != sizeof(*r) + 16 || r->epid < 1 || r->epid > WRITERS) {
			s->torn++;
			return true;
		}
		memcpy(v, r + 1, 16);
		uint64_t w = v[0] >> 32, seq = v[0] & 0xffffffffu;
		if (v[1] != ~v[0] || w != r->epid - 1u || seq >= PER_WRITER) {
			s->torn++;
		} else if (s->bits[w][seq]) {
			s->twice++;
		} else {
			s->bits[w][seq] = 1;
			s->records++;
		}
		pos += r->size;
	}
	return true;
}

TEST(threads_speculate_while_another_commits)
{
	pthread_t th[WRITERS];
	struct seen s = { 0 };
	uint64_t deferred = 0;

	table_init(&stress, 4, 64 << 10);
	for (int w = 0; w < WRITERS; w++)
		s.bits[w] = calloc(PER_WRITER, 1);
	__atomic_store_n(&current_id, udt__spec_alloc(&stress.t), __ATOMIC_RELEASE);
	for (long w = 0; w < WRITERS; w++)
		pthread_create(&th[w], NULL, writer, (void *)w);
	/* the committer: a new speculation for the writers, then commit the old one; one
	   still being written into is finished later, as the consumer would */
	int pending[4] = { 0 };
	while (__atomic_load_n(&writers_done, __ATOMIC_ACQUIRE) < WRITERS) {
		uint64_t next = udt__spec_alloc(&stress.t);
		if (!next)
			goto finish_some;
		uint64_t old = __atomic_exchange_n(&current_id, next, __ATOMIC_ACQ_REL);
		int rv = udt__spec_end(&stress.t, old, true, check_sink, &s);
		if (rv == UDT_SPEC_DEFERRED) {
			pending[old - 1] = 1;
			deferred++;
		}
finish_some:
		for (uint32_t i = 0; i < 4; i++)
			if (pending[i] && udt__spec_finish(&stress.t, i, true, check_sink, &s))
				pending[i] = 0;
	}
	for (int w = 0; w < WRITERS; w++)
		pthread_join(th[w], NULL);
	(void)udt__spec_end(&stress.t, current_id, true, check_sink, &s);
	for (uint32_t i = 0; i < 4; i++)
		if (pending[i])
			CHECK(udt__spec_finish(&stress.t, i, true, check_sink, &s));
	uint64_t total = 0;
	for (int w = 0; w < WRITERS; w++)
		total += published[w];
	/* every record published was committed exactly once, whole */
	CHECK_EQ(s.torn, 0);
	CHECK_EQ(s.twice, 0);
	CHECK_EQ(s.records, total);
	CHECK_EQ(total, WRITERS * PER_WRITER);
	for (uint32_t i = 0; i < 4; i++)
		CHECK_EQ(stress.t.spec[i].writers, 0);
	printf("    %llu commits deferred while a thread wrote\n", (unsigned long long)deferred);
	for (int w = 0; w < WRITERS; w++)
		free(s.bits[w]);
	table_free(&stress);
}
