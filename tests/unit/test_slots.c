/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of several sessions in one process (docs/runtime.md, "Several
 * sessions"), with the runtime linked in and this test playing two and
 * three consumers (tests/unit/fake_consumer.h): each slot's session records
 * its own ECBs of a probe they share, into its own buffers; one session's
 * deadman takes its share off the shared semaphore and leaves the dispatch
 * pointer another session holds, and its memory goes; the last one clears it; a fork child
 * leaves every inherited session, writing nothing into the parent's
 * buffers; a session's number is checked per slot, so a slot taken again
 * by a new session is not mistaken for the old one, and a thread's state of
 * the old one, given to another thread by the new one, stays that thread's.
 */
#define HARNESS_MAIN
#include "tests/harness.h"

#include "tests/unit/fake_consumer.h"

#include <pthread.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* One object's probes: a semaphore both sessions enable, one only slot 2's; its dispatch. */
static unsigned short sem_shared, sem_two;
static void *disp;

/* Slot s's session with one ECB (epid, tracing arg) on each of the n semaphores. */
static void start(uint32_t s, uint32_t epid, uint32_t arg, unsigned short *const *sems, uint32_t n)
{
	struct udt_ecb e[4];
	uint64_t list[4], d = (uint64_t)(uintptr_t)&disp;

	fc_begin(s);
	for (uint32_t i = 0; i < n; i++) {
		e[i] = fc_direct_ecb(s, epid + i, sems[i], arg, 0);
		list[i] = (uint64_t)(uintptr_t)sems[i];
	}
	fc_start(s, e, n, list, n, &d, 1);
	/* as a consumer does: the dispatch pointer, then one more on each semaphore */
	disp = (void *)udt__fire;
	for (uint32_t i = 0; i < n; i++)
		(*sems[i])++;
}

TEST(sessions_record_their_own)
{
	char got[512];
	unsigned short *one[] = { &sem_shared }, *two[] = { &sem_shared, &sem_two };

	start(0, 1, 0, one, 1); /* slot 0: epid 1 traces arg0 */
	start(2, 7, 1, two, 2); /* slot 2: epids 7, 8 trace arg1 */
	CHECK_EQ(sem_shared, 2);
	udt__fire(&sem_shared, 2, 10, 20, 0, 0);
	udt__fire(&sem_two, 2, 11, 21, 0, 0);
	udt__fire(&sem_shared, 2, 12, 22, 0, 0);
	CHECK_STR((fc_records(0, got, sizeof(got)), got), "1:10 1:12");
	CHECK_STR((fc_records(2, got, sizeof(got)), got), "7:20 8:21 7:22");
	/* two memories: neither session's buffers are the other's */
	CHECK(FC_CTL(0)->shm_addr != FC_CTL(2)->shm_addr);

	/* slot 2's consumer goes silent: its deadman takes its share only */
	FC_CTL(2)->heartbeat_ns = 1;
	FC_CTL(2)->deadman_ns = 1;
	FC_CTL(2)->deadline = 2;
	udt__fire(&sem_shared, 2, 13, 23, 0, 0);
	CHECK_EQ(FC_CTL(2)->state, UDT_STATE_DEADMAN);
	CHECK_EQ(udt__control.hdr.live[2], 0);
	CHECK_EQ(sem_shared, 1);
	CHECK_EQ(sem_two, 0);
	CHECK(disp == (void *)udt__fire); /* slot 0 still holds it */
	CHECK_EQ(FC_CTL(0)->state, UDT_STATE_ACTIVE);
	udt__fire(&sem_shared, 2, 14, 24, 0, 0);
	CHECK_STR((fc_records(0, got, sizeof(got)), got), "1:10 1:12 1:13 1:14");
	/* the dead consumer's memory: released by the fire that ended it, once out of it
	   (its consumer, had it lived, maps its own view) */
	CHECK_EQ(FC_CTL(2)->shm_state, UDT_SHM_NONE);

	/* and the last session's deadman clears the dispatch pointer */
	FC_CTL(0)->heartbeat_ns = 1;
	FC_CTL(0)->deadman_ns = 1;
	FC_CTL(0)->deadline = 2;
	udt__fire(&sem_shared, 2, 15, 25, 0, 0);
	CHECK_EQ(udt__control.hdr.lives, 0);
	CHECK_EQ(sem_shared, 0);
	CHECK(disp == NULL);
}

TEST(slot_taken_again_is_a_new_session)
{
	char got[512];
	unsigned short *one[] = { &sem_shared };

	start(1, 3, 0, one, 1);
	udt__fire(&sem_shared, 1, 30, 0, 0, 0);
	fc_set_state(1, UDT_STATE_DETACHED);
	sem_shared--;
	/* the next session in the slot: new ECBs, new memory; the thread's cache of the old
	   one is not taken for it */
	start(1, 5, 0, one, 1);
	udt__fire(&sem_shared, 1, 31, 0, 0, 0);
	CHECK_STR((fc_records(1, got, sizeof(got)), got), "5:31");
	fc_set_state(1, UDT_STATE_DETACHED);
	sem_shared = 0;
	disp = NULL;
}

/* Fire sem_shared once with the thread's id as arg0. */
static void *fire_tid(void *arg)
{
	(void)arg;
	udt__fire(&sem_shared, 1, (uint64_t)syscall(SYS_gettid), 0, 0, 0);
	return NULL;
}

/* Slot s's buffers: "T" for one whose every record holds its thread's id, "x" else. */
static void owners(uint32_t s, char *out, size_t sz)
{
	struct udt_control *c = FC_CTL(s);
	const uint8_t *shm = (const uint8_t *)(uintptr_t)c->shm_addr;
	const struct udt_shm_hdr *h = (const void *)shm;
	size_t o = 0;

	out[0] = '\0';
	for (uint32_t i = 0; i < h->tbuf_cnt && i < h->tbuf_max && o + 2 < sz; i++) {
		const struct udt_tbuf *tb = (const struct udt_tbuf *)(shm + h->tbuf_off) + i;
		const uint8_t *half = shm + h->data_off + (uint64_t)i * 2 * h->bufsize;
		bool own = true;
		for (uint64_t p = 0; p + sizeof(struct udt_rec) <= tb->off[0];) {
			const struct udt_rec *r = (const void *)(half + p);
			uint64_t v;
			memcpy(&v, r + 1, 8);
			own &= v == (uint64_t)tb->tid;
			p += r->size;
		}
		out[o++] = own ? 'T' : 'x';
		out[o] = '\0';
	}
}

TEST(states_of_a_slot_taken_again_are_their_threads)
{
	char got[64];
	unsigned short *one[] = { &sem_shared };
	pthread_t th;

	start(4, 3, 0, one, 1);
	fire_tid(NULL); /* this thread takes the slot's first state */
	fc_set_state(4, UDT_STATE_DETACHED);
	sem_shared--;
	/* the next session: another thread fires first, and takes the first state, where
	   this thread's pointer of the old session still points; then this one fires */
	start(4, 5, 0, one, 1);
	REQUIRE(pthread_create(&th, NULL, fire_tid, NULL) == 0);
	REQUIRE(pthread_join(th, NULL) == 0);
	fire_tid(NULL);
	fire_tid(NULL);
	/* each thread in a buffer of its own (before: this one wrote into the other's) */
	CHECK_STR((owners(4, got, sizeof(got)), got), "TT");
	fc_set_state(4, UDT_STATE_DETACHED);
	sem_shared = 0;
	disp = NULL;
}

TEST(fork_child_leaves_every_session)
{
	char got[512];
	unsigned short *one[] = { &sem_shared }, *two[] = { &sem_shared, &sem_two };

	start(0, 1, 0, one, 1);
	start(3, 2, 0, two, 2);
	udt__fire(&sem_shared, 1, 40, 0, 0, 0);
	pid_t child = fork();
	if (child == 0) {
		/* the child: its copies of both sessions undone, nothing recorded */
		udt__fire(&sem_shared, 1, 41, 0, 0, 0);
		udt__fire(&sem_two, 1, 42, 0, 0, 0);
		_exit(sem_shared == 0 && sem_two == 0 && disp == NULL && !udt__control.hdr.lives
			      ? 0 : 1);
	}
	int status = 0;
	REQUIRE(waitpid(child, &status, 0) == child);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	udt__fire(&sem_shared, 1, 43, 0, 0, 0);
	CHECK_STR((fc_records(0, got, sizeof(got)), got), "1:40 1:43");
	CHECK_STR((fc_records(3, got, sizeof(got)), got), "2:40 2:43");
	CHECK_EQ(sem_shared, 2);
	fc_set_state(0, UDT_STATE_DETACHED);
	fc_set_state(3, UDT_STATE_DETACHED);
	sem_shared = sem_two = 0;
	disp = NULL;
}
