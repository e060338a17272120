/* SPDX-License-Identifier: MIT */
/*
 * Sessions: the control block's slots, the shared buffer memory, the
 * deadman and fork.
 *
 * A session is one consumer's time with this process (docs/runtime.md). The
 * consumer opens it by taking a free slot of the control block
 * (udt__control.slots) and writing it from outside, then setting the
 * probes' semaphores; nothing runs here until a probe fires. Up to
 * UDT_SLOT_MAX sessions run at once, each with its own enablings, buffers
 * and deadman; a fire runs every ACTIVE slot's ECBs of its probe (fire.c).
 * The first fire of a session makes its shared memory: a memfd, sized for
 * tbuf_max threads of two bufsize halves each (sparse: pages exist only once
 * written), mapped MAP_SHARED, its descriptor published for the consumer to
 * open through /proc/PID/fd; and, private to the process, the threads'
 * states in that session (struct udt_tslot, one per thread buffer), so that
 * the static TLS holds a pointer per slot. One thread makes them (a
 * compare-and-swap on shm_state); fires that meet them being made are
 * counted as lost. Once the consumer has mapped the memory (shm_acked), the
 * descriptor is closed at the next fire, so the process's descriptor table
 * is left as it was.
 *
 * A session's memory is unmapped once the session is over and no thread is
 * inside a fire (udt__sessions_release(): the threads that took buffers are
 * listed, and each fire reads the live bytes again once it has stored its
 * depth): from the call the consumer injects at its detach, or when the
 * slot's next session makes its own. Where a thread is in a fire then, the
 * memory is only given back (MADV_REMOVE) and the mapping kept. Once no
 * session is left, the fault handler of direct loads is put back too.
 * Buffers of more threads are in segments (memfds of their own) made as the
 * threads come: udt__seg_get().
 *
 * What sessions share is counted or kept, never overwritten: a semaphore is
 * a counter (each session adds one, and its undo takes one off, never below
 * zero: SystemTap's and bpftrace's users count on it too), and an object's
 * dispatch pointer is cleared only when no other ACTIVE session's undo lists
 * hold it. Consumers change semaphores with a read and a write from
 * outside; they serialize among themselves with a lock, flock() on
 * /proc/PID/mem (which only those who may trace the process can open), and
 * the runtime takes the same lock (non-blocking, on /proc/self/mem) before
 * it undoes a session: a consumer at work defers it to a later fire.
 *
 * The deadman: every fire compares the time with its session's consumer's
 * last heartbeat. Past the deadman interval, that session is over: the
 * first thread to notice (a compare-and-swap on the slot's state byte)
 * restores the semaphores and dispatch pointers its consumer set, so the
 * process runs as if that session had never been. The other sessions go
 * on. A process that fires nothing pays nothing in the meantime (its sites
 * test the semaphore only).
 *
 * fork(): the child must not write into the parent's buffers. The first fire
 * of a session in a process compares the kernel's pid with the one the
 * consumer attached to, and a "fork canary" (a page that MADV_WIPEONFORK
 * zeroes in a child, made once) tells a later fire that the process is
 * still the one that compared. A fork child, which sees the canary zeroed,
 * forgets what was compared and compares again: the sessions it inherited
 * (the pid differs) are skipped at once and their views of the parent's
 * memory unmapped; under the lock, they are marked FORKED and their copies
 * of the semaphores and dispatch pointers undone. A session whose consumer
 * follows forks (UDT_CTL_FOLLOW) is kept instead: the child drops its view
 * of the parent's memory and makes its own (take_inherited()). A session a
 * consumer started in the child itself is the child's. No atfork handler is
 * registered: nothing runs before a consumer comes but the -c handshake
 * below (when dtrace -c asks for it): no thread, no signal handler, no
 * memory written.
 */
#include "runtime/area.h"
#include "runtime/internal.h"
#include "runtime/sites.h"
#include "runtime/vars.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <linux/kcmp.h>
#include <linux/membarrier.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

UDT_EXPORT struct udt_ctlblock udt__control;
extern struct udt_ctlblock udt__ctl
	__attribute__((alias("udt__control"), visibility("hidden"))); /* (internal.h) */

UDT_EXPORT const struct udt_runtime_id udt__runtime_id = {
	.size = sizeof(struct udt_runtime_id),
	.magic = UDT_CONTROL_MAGIC,
	.version = UDT_ABI_VERSION,
	.control_size = sizeof(struct udt_ctlblock),
	.slot_cnt = UDT_SLOT_MAX,
	.slot_size = sizeof(struct udt_control),
};

struct udt_slot_rt udt__slot_rt[UDT_SLOT_MAX];

/* The fork canary (see above and internal.h), once made. */
struct udt_canary *udt__fork_canary;

__thread struct udt_tls udt__tls __attribute__((tls_model("initial-exec")));

uint64_t udt__now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int32_t udt__gettid(void)
{
	return (int32_t)syscall(SYS_gettid);
}

uint32_t udt__getcpu_slow(void)
{
	int cpu = sched_getcpu();

	return cpu < 0 ? 0 : (uint32_t)cpu;
}

/*
 * The consumers' lock (see above), without waiting: a descriptor to give to
 * attach_unlock(); -1 while a consumer holds it; -2 when there is none to
 * take (no /proc, no descriptor left): then we go on without it.
 */
static int attach_trylock(void)
{
	int fd = open("/proc/self/mem", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -2;
	if (flock(fd, LOCK_EX | LOCK_NB) == 0)
		return fd;
	int busy = errno == EWOULDBLOCK;
	close(fd);
	return busy ? -1 : -2;
}

static void attach_unlock(int fd)
{
	if (fd >= 0)
		close(fd); /* (releases the lock) */
}

/* Is address addr in an undo list of kind is_disp (find_in_lists())? */
struct find_addr {
	uint64_t addr;
	bool is_disp;
	bool found;
};

static void find_in_list(uint64_t *list, uint32_t n, bool is_disp, void *arg)
{
	struct find_addr *f = arg;

	for (uint32_t i = 0; i < n && is_disp == f->is_disp && !f->found; i++)
		f->found = LOAD_RELAXED(&list[i]) == f->addr;
}

/* Does an ACTIVE slot other than self hold dispatch pointer addr in its undo lists? */
static bool disp_in_use(uint32_t self, uint64_t addr)
{
	for (uint32_t s = 0; s < UDT_SLOT_MAX; s++) {
		struct udt_control *o = &udt__ctl.slots[s];
		struct find_addr f = { addr, true, false };

		if (s == self || !udt__active(o))
			continue;
		udt__area_undo_lists(udt__area(o, LOAD_RELAXED(&o->area)), find_in_list, &f);
		if (f.found)
			return true;
	}
	return false;
}

/*
 * Restore one undo list of slot *arg: its dispatch pointers cleared unless
 * another session holds them, its semaphores down by one.
 */
static void undo_list(uint64_t *list, uint32_t n, bool is_disp, void *arg)
{
	uint32_t self = *(const uint32_t *)arg;

	for (uint32_t i = 0; i < n; i++) {
		uint64_t a = LOAD_RELAXED(&list[i]);

		if (!a)
			continue; /* struck: its object was unloaded (registry.c) */
		if (a >> 47)
			continue; /* not a user-space address: nothing of ours (a consumer's mistake) */
		if (is_disp) {
			if (!disp_in_use(self, a))
				STORE_RELAXED((void **)(uintptr_t)a, NULL);
			continue;
		}
		/* never below zero: another tracer may have reset it */
		unsigned short *sem = (unsigned short *)(uintptr_t)a;
		unsigned short v = LOAD_RELAXED(sem);
		while (v && !__atomic_compare_exchange_n(sem, &v, (unsigned short)(v - 1), false,
							 __ATOMIC_RELAXED, __ATOMIC_RELAXED))
			;
	}
}

/* Restore what slot c's consumer set, in every generation of its session's enablings. */
static void undo_enablings(struct udt_control *c)
{
	uint32_t self = udt__slot_of(c);

	udt__area_undo_lists(udt__area(c, LOAD_RELAXED(&c->area)), undo_list, &self);
}

/*
 * End slot c's session, if it is still session: its live byte from 1 to 0
 * (the thread that does is the one that ends it), then its state why.
 */
static bool end_state(struct udt_control *c, uint32_t session, uint32_t why)
{
	uint8_t live = 1;

	if (LOAD_ACQUIRE(&c->session) != session)
		return false;
	/* pairs with the loads of the live bytes in udt__fire() */
	if (!__atomic_compare_exchange_n(udt__live_of(c), &live, 0, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_RELAXED))
		return false;
	STORE_RELAXED(&c->state, why);
	return true;
}

void udt__session_end(struct udt_control *c, uint32_t session, uint32_t why)
{
	int lock = attach_trylock();

	if (lock == -1)
		return; /* a consumer is changing semaphores: the next fire ends it */
	if (end_state(c, session, why)) {
		undo_enablings(c);
		STORE_RELAXED(&c->deadman_session, session);
	}
	attach_unlock(lock);
	udt__sites_sync(false); /* the SystemTap sites' bytes no live session has */
}

/* The layout: header, thread buffers, their halves, their aggregation tables, their variables. */
static uint64_t shm_data_off(uint32_t tmax)
{
	uint64_t hdr = (sizeof(struct udt_shm_hdr) + 127) & ~127ull;

	return hdr + (((uint64_t)tmax * sizeof(struct udt_tbuf) + 4095) & ~4095ull);
}

static uint64_t shm_total(uint64_t bufsize, uint64_t aggsize, uint64_t tvarsize, uint32_t ngvars,
			  uint32_t tmax)
{
	return shm_data_off(tmax) + (uint64_t)tmax * (2 * bufsize + 2 * aggsize + tvarsize) +
	       (uint64_t)ngvars * 8;
}

/* After the speculations: the threads' strings and scratch, the global strings, dynamic
   variables (vars.c), 64-aligned. */
static uint64_t vars_bytes(uint32_t tmax, uint64_t tlocal, uint64_t global)
{
	return tlocal || global ? 64 + (uint64_t)tmax * tlocal + global : 0;
}

/*
 * The consumer's barrier at each switch (docs/runtime.md, "Buffers") is
 * membarrier(MEMBARRIER_CMD_GLOBAL), an RCU grace period: 15 ms on an idle
 * machine and over a second on a loaded one, long enough for the buffers to
 * fill meanwhile. Registered processes can be sent the expedited one
 * instead, IPIs to the CPUs running them, a few microseconds. Registering
 * costs one grace period itself, once in the process's life, and only when
 * it has several threads (the kernel makes each CPU see the registration):
 * so it is done once the shared memory is published, and only the thread
 * that made it waits, while the others record. Under dtrace -c it happens
 * before main(), single-threaded, at once. The consumer uses the expedited
 * barrier once the flag is set.
 */
static bool mb_registered; /* (the expedited barrier reaches this process: threads_busy()) */

static void register_membarrier(struct udt_shm_hdr *h)
{
	if (LOAD_RELAXED(&mb_registered) ||
	    syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED, 0, 0) == 0) {
		STORE_RELAXED(&mb_registered, true);
		__atomic_fetch_or(&h->flags, UDT_SHM_MB_EXPEDITED, __ATOMIC_RELEASE);
	}
}

/* The speculations after all that, 64-aligned: their headers, then their buffers. */
static uint64_t spec_bytes(uint32_t nspec, uint64_t specsize)
{
	return nspec ? 64 + (uint64_t)nspec * (sizeof(struct udt_spec) + specsize) : 0;
}

/*
 * ring: the chunk the tail moves by (record.c). A sixteenth of the half, or
 * an eighth, a quarter, a half while the session's largest record (its
 * ECBs', or an error record) would not fit in one. The half is a multiple
 * of 128 bytes, so chunks are of 8.
 */
static uint64_t ring_chunk(uint64_t B, const uint8_t *area)
{
	const struct udt_area_hdr *ah = (const void *)area;
	uint64_t maxrec = sizeof(struct udt_rec) + sizeof(struct udt_err);
	uint64_t n = 16;

	/* the area may not be verified yet (the -c handshake makes the memory first) */
	if (ah->ecb_off <= UDT_AREA_SZ &&
	    ah->ecb_cnt <= (UDT_AREA_SZ - ah->ecb_off) / sizeof(struct udt_ecb)) {
		const struct udt_ecb *e = (const void *)(area + ah->ecb_off);
		for (uint32_t i = 0; i < ah->ecb_cnt; i++)
			if (sizeof(struct udt_rec) + (uint64_t)e[i].rec_size > maxrec)
				maxrec = sizeof(struct udt_rec) + (uint64_t)e[i].rec_size;
	}
	while (n > 2 && B / n < maxrec)
		n /= 2;
	return B / n;
}

/* The bytes of a session's threads' states (struct udt_tslot), whole pages. */
static uint64_t tslots_bytes(uint32_t tmax)
{
	return ((uint64_t)tmax * sizeof(struct udt_tslot) + 4095) & ~4095ull;
}

/*
 * The threads' states of segment k of slot r, for n buffers, zeroed: those
 * of the slot's sessions before if of that size (a thread's TLS may still
 * point into them, so they stay mapped, their memory given back when their
 * session ended), else new ones. NULL if they cannot be mapped.
 */
static struct udt_tslot *tslots_get(struct udt_slot_rt *r, uint32_t k, uint32_t n)
{
	if (r->seg_ts[k] && r->seg_ts_sz[k] == tslots_bytes(n))
		return r->seg_ts[k];
	void *ts = mmap(NULL, tslots_bytes(n), PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (ts == MAP_FAILED)
		return NULL;
	/* (another size's, if any, stays mapped: see above) */
	r->seg_ts[k] = ts;
	r->seg_ts_sz[k] = tslots_bytes(n);
	return ts;
}

/*
 * Make the shared memory of slot c's session, and its threads' states.
 * Called by the one thread that won the CAS.
 */
static int shm_create(struct udt_control *c, uint32_t session)
{
	uint64_t bufsize = LOAD_RELAXED(&c->bufsize);
	uint64_t aggsize = LOAD_RELAXED(&c->aggsize);
	uint64_t tvarsize = LOAD_RELAXED(&c->tvarsize);
	uint32_t tmax = LOAD_RELAXED(&c->tbuf_max);
	/* the first buffers here, the others in segments made as threads come (seg_make()) */
	uint32_t n0 = tmax < UDT_SEG0_TBUFS ? tmax : UDT_SEG0_TBUFS;
	/* the global variables start as the session's area gives them (BEGIN's values) */
	const uint8_t *area = udt__area(c, LOAD_RELAXED(&c->area));
	const struct udt_area_hdr *ah = (const void *)area;
	uint32_t ngvars = ah->ngvars;
	bool bad_vars;
	const struct udt_vars *vars = udt__vars_of(area, &bad_vars);
	uint64_t tlocal = udt__vars_tlocal_sz(vars), global = udt__vars_global_sz(vars);
	bool resize = LOAD_RELAXED(&c->flags) & UDT_CTL_BUFRESIZE;
	bool ring = LOAD_RELAXED(&c->policy) == UDT_POLICY_RING;
	int fd = -1, err = 0;
	void *m = MAP_FAILED, *ts;

	uint32_t nspec = ah->nspec;
	const struct udt_area_spec *as = (const void *)(area + ah->spec_off);

	if (bufsize < 64 || bufsize % 8 || !tmax || tmax > UDT_TBUF_LIMIT || aggsize % 4096 ||
	    aggsize >= ((uint64_t)1 << 32) || tvarsize % 8 || tvarsize > UDT_MAX_TVARS * 8 ||
	    ngvars > UDT_MAX_GVARS || ah->gvar_off % 8 ||
	    (uint64_t)ah->gvar_off + (uint64_t)ngvars * 8 > UDT_AREA_SZ || nspec > UDT_MAX_NSPEC ||
	    (nspec && (ah->spec_off % 8 ||
		       (uint64_t)ah->spec_off + sizeof(*as) + (uint64_t)nspec * 4 > UDT_AREA_SZ ||
		       as->specsize % 8 || !as->specsize || as->specsize > ((uint64_t)1 << 31))) ||
	    bad_vars)
		return -EINVAL;
	uint64_t specsize = nspec ? as->specsize : 0;
	struct udt_slot_rt *r = &udt__slot_rt[udt__slot_of(c)];
	ts = tslots_get(r, 0, n0);
	if (!ts)
		return -errno;
	/* sealed below: the consumer maps only a memory that can neither shrink nor grow */
	fd = memfd_create("udtrace", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0) {
		return -errno;
	}
	for (;;) {
		/* ring: whole chunks (ring_chunk()) */
		if (ring)
			bufsize = bufsize < 128 ? 128 : bufsize & ~127ull;
		uint64_t total = shm_total(bufsize, aggsize, tvarsize, ngvars, n0) +
				 spec_bytes(nspec, specsize) + vars_bytes(n0, tlocal, global);

		if (ftruncate(fd, (off_t)total) == 0) {
			m = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE,
				 fd, 0);
			if (m != MAP_FAILED)
				break;
		}
		err = -errno;
		if (!resize || bufsize <= 4096) {
			close(fd);
			return err;
		}
		bufsize /= 2; /* bufresize=auto: halve until it fits */
	}

	/*
	 * Its size is final: sealed so that no one (the program included) can
	 * truncate it under the consumer's mapping (docs/runtime.md, "Trust").
	 * A memory that could not be sealed is one the consumer refuses.
	 */
	(void)fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL);
	struct udt_shm_hdr *h = m;

	h->size = sizeof(*h);
	h->magic = UDT_SHM_MAGIC;
	h->version = UDT_ABI_VERSION;
	h->session = session;
	h->total_sz = shm_total(bufsize, aggsize, tvarsize, ngvars, n0) + spec_bytes(nspec, specsize) +
		     vars_bytes(n0, tlocal, global);
	h->bufsize = bufsize;
	h->policy = LOAD_RELAXED(&c->policy);
	h->tbuf_max = tmax;
	h->tbuf_off = (sizeof(struct udt_shm_hdr) + 127) & ~127ull;
	h->seg0_tbufs = n0;
	h->seg_state[0] = UDT_SHM_READY;
	for (uint32_t k = 0; k < UDT_SEG_MAX; k++)
		h->seg_fd[k] = -1;
	h->data_off = shm_data_off(n0);
	h->agg_off = h->data_off + (uint64_t)n0 * 2 * bufsize;
	h->aggsize = aggsize;
	h->tvar_off = h->agg_off + (uint64_t)n0 * 2 * aggsize;
	h->tvarsize = tvarsize;
	h->gvar_off = h->tvar_off + (uint64_t)n0 * tvarsize;
	h->ngvars = ngvars;
	h->ring_chunk = ring ? ring_chunk(bufsize, area) : 0;
	if (ngvars)
		memcpy((uint8_t *)m + h->gvar_off, area + ah->gvar_off, (size_t)ngvars * 8);
	h->nspec = nspec;
	h->specsize = specsize;
	h->spec_off = (h->gvar_off + (uint64_t)ngvars * 8 + 63) & ~63ull;
	h->spec_data_off = h->spec_off + (uint64_t)nspec * sizeof(struct udt_spec);
	/* the speculations BEGIN handed out stay handed out (their IDs are in its variables) */
	struct udt_spec *specs = (struct udt_spec *)(void *)((uint8_t *)m + h->spec_off);
	for (uint32_t i = 0; i < nspec; i++)
		specs[i].state = as->state[i] == UDT_SPEC_ACTIVE ? UDT_SPEC_ACTIVE : UDT_SPEC_INACTIVE;
	h->tlocal_off = (h->spec_data_off + (uint64_t)nspec * specsize + 63) & ~63ull;
	h->tlocal_sz = tlocal;
	if (udt__vars_setup(h, m, h->tlocal_off + (uint64_t)n0 * tlocal, area, vars)) {
		munmap(m, h->total_sz);
		close(fd);
		return -EINVAL;
	}

	STORE_RELAXED(&c->bufsize, bufsize);
	STORE_RELAXED(&c->shm_fd, fd);
	STORE_RELAXED(&c->shm_size, h->total_sz);
	STORE_RELAXED(&c->shm_addr, (uint64_t)(uintptr_t)m);
	STORE_RELAXED(&c->shm_session, session);
	r->seg[0] = (uint8_t *)m;
	r->seg_sz[0] = h->total_sz;
	STORE_RELAXED(&r->shm, h);
	/* pairs with the acquire loads of shm_state (here and in the consumer) */
	STORE_RELEASE(&c->shm_state, UDT_SHM_READY);
	register_membarrier(h);
	return 0;
}

/*
 * Make segment k of the session whose memory is shm (udt_seg_layout()): a
 * memfd sealed as the main one, mapped, its descriptor published for the
 * consumer, and its threads' states.
 */
static int seg_make(struct udt_slot_rt *r, struct udt_shm_hdr *shm, uint32_t k)
{
	uint32_t n = udt_seg_tbufs(shm->seg0_tbufs, k);
	struct udt_seg_layout l;
	void *m = MAP_FAILED;
	int fd, err;

	udt_seg_layout(n, shm->bufsize, shm->aggsize, shm->tvarsize, shm->tlocal_sz, &l);
	if (!tslots_get(r, k, n))
		return -errno;
	fd = memfd_create("udtrace", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		goto fail;
	if (ftruncate(fd, (off_t)l.total) == 0)
		m = mmap(NULL, l.total, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
	if (m == MAP_FAILED)
		goto fail;
	(void)fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL);
	r->seg[k] = m;
	r->seg_sz[k] = l.total;
	STORE_RELAXED(&shm->seg_fd[k], fd);
	return 0;
fail:
	err = -errno;
	if (fd >= 0)
		close(fd);
	return err;
}

/* Close the descriptors of the segments of shm the consumer has mapped. */
static void seg_close_acked(struct udt_shm_hdr *shm)
{
	for (uint32_t k = 1; k < UDT_SEG_MAX; k++)
		if (LOAD_RELAXED(&shm->seg_fd[k]) >= 0 && LOAD_RELAXED(&shm->seg_acked[k])) {
			int fd = __atomic_exchange_n(&shm->seg_fd[k], -1, __ATOMIC_RELAXED);
			if (fd >= 0)
				close(fd);
		}
}

/* Wait (1 s at most) while another thread makes what *state says; its state then. */
static uint32_t wait_made(uint32_t *state)
{
	uint32_t st = LOAD_ACQUIRE(state);
	uint64_t until = 0;

	while (st == UDT_SHM_CREATING) {
		if (!until)
			until = udt__now_ns() + 1000000000u;
		else if (udt__now_ns() > until)
			break;
		sched_yield();
		st = LOAD_ACQUIRE(state);
	}
	return st;
}

bool udt__seg_get(struct udt_control *c, struct udt_shm_hdr *shm, uint32_t k)
{
	struct udt_slot_rt *r = &udt__slot_rt[udt__slot_of(c)];

	seg_close_acked(shm);
	for (uint32_t s = 1; s <= k;) {
		uint32_t st = wait_made(&shm->seg_state[s]);

		if (st == UDT_SHM_READY) {
			s++;
			continue;
		}
		if (st == UDT_SHM_CREATING)
			return false; /* (its maker is stuck) */
		/* none yet, or it failed (memory may have come back): ours to make */
		if (!__atomic_compare_exchange_n(&shm->seg_state[s], &st, UDT_SHM_CREATING, false,
						 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			continue;
		int err = seg_make(r, shm, s);
		/* pairs with the acquire loads of seg_state (here and in the consumer) */
		STORE_RELEASE(&shm->seg_state[s], err ? UDT_SHM_FAILED : UDT_SHM_READY);
		if (err)
			return false;
		/* (its buffers are read once dtrace maps it: a round now, however idle) */
		udt__wake_shm(shm);
	}
	return true;
}

void udt__lost(struct udt_control *c)
{
	uint32_t slot = udt__slot_of(c);
	struct udt_shm_hdr *s = LOAD_RELAXED(&udt__slot_rt[slot].shm);
	struct udt_tslot *ts = udt__tslot_of(&udt__tls, slot, LOAD_RELAXED(&c->session));

	/* the shared memory's count outlives the process; the control block's does not (the
	   slot's previous session's memory, given back, reads 0) */
	if (!s || LOAD_RELAXED(&s->session) != LOAD_RELAXED(&c->session))
		__atomic_fetch_add(&c->lost, 1, __ATOMIC_RELAXED);
	else if (ts && ts->shm == s)
		__atomic_fetch_add(&ts->tb->lost, 1, __ATOMIC_RELAXED); /* (the thread's own) */
	else
		__atomic_fetch_add(&s->lost, 1, __ATOMIC_RELAXED);
}

/* A lock of a few instructions' holding (never held across a wait). */
static void spin_take(uint32_t *lock)
{
	while (__atomic_exchange_n(lock, 1, __ATOMIC_ACQUIRE))
		sched_yield();
}

static void spin_drop(uint32_t *lock)
{
	__atomic_store_n(lock, 0, __ATOMIC_RELEASE);
}

/*
 * Memory given back while a thread may have been in it (DROP_GIVE_BACK: its
 * pages gone, its mapping kept), to unmap once no thread is in a fire
 * (graves_unmap()): else each slot's next session, made while another
 * thread fires, would leave its predecessor's mapping for good (a process
 * traced again and again would reach vm.max_map_count). Should the list be
 * full, the mapping stays, as before.
 */
#define GRAVES_MAX 64
static struct grave {
	uint8_t *addr;
	uint64_t sz;
} graves[GRAVES_MAX];
static uint32_t graves_cnt, graves_lock;

static void graves_add(uint8_t *addr, uint64_t sz)
{
	spin_take(&graves_lock);
	if (graves_cnt < GRAVES_MAX)
		graves[graves_cnt++] = (struct grave){ addr, sz };
	spin_drop(&graves_lock);
}

/* How many there are: those a later threads_busy() that says none is busy may unmap. */
static uint32_t graves_seen(void)
{
	return LOAD_ACQUIRE(&graves_cnt);
}

/* Unmap the first n, given back before a look found no thread in a fire. */
static void graves_unmap(uint32_t n)
{
	spin_take(&graves_lock);
	for (uint32_t i = 0; i < n; i++)
		(void)munmap(graves[i].addr, graves[i].sz);
	memmove(graves, graves + n, (graves_cnt - n) * sizeof(graves[0]));
	STORE_RELAXED(&graves_cnt, graves_cnt - n);
	spin_drop(&graves_lock);
}

/* What becomes of a slot's memory (drop_memory()). */
enum drop {
	DROP_GIVE_BACK, /* its pages given back, its mappings kept (a thread may be in it) */
	DROP_UNMAP,     /* unmapped: no thread is in it (the threads' states kept, zeroed) */
	DROP_ALL,       /* unmapped, the threads' states too (a fork child's copy) */
	DROP_PARENT,    /* the same, but the globals' memory kept (a fork child's, taking
			   the session: struct udt_globals) */
};

/*
 * Slot c's memory, of a session that is over or of the parent of a fork
 * child: its descriptors closed, its segments and threads' states as how
 * says. The threads' states stay mapped but in a fork child: a thread's TLS
 * may point into them (and finds them zeroed, or given to another thread by
 * the slot's next session: a pointer is a thread's own only in the session
 * its udt_tls.slot_session[] names).
 */
static void drop_memory(struct udt_control *c, enum drop how)
{
	struct udt_slot_rt *r = &udt__slot_rt[udt__slot_of(c)];
	struct udt_shm_hdr *shm = (struct udt_shm_hdr *)r->seg[0];
	int fd = __atomic_exchange_n(&c->shm_fd, -1, __ATOMIC_RELAXED);

	if (fd >= 0)
		close(fd);
	STORE_RELAXED(&r->shm, NULL);
	/* (another process's memory: never given back from here, and unmapped once no thread
	   can be in it) */
	if (r->globals.map && (how == DROP_UNMAP || how == DROP_ALL)) {
		(void)munmap(r->globals.map, r->globals.map_sz);
		r->globals = (struct udt_globals){ 0 };
	}
	for (uint32_t k = UDT_SEG_MAX; k-- > 0;) {
		if (shm && k && (fd = __atomic_exchange_n(&shm->seg_fd[k], -1,
							  __ATOMIC_RELAXED)) >= 0)
			close(fd);
		if (r->seg[k] && r->seg[k] != r->globals.map && how == DROP_GIVE_BACK) {
			(void)madvise(r->seg[k], r->seg_sz[k], MADV_REMOVE);
			graves_add(r->seg[k], r->seg_sz[k]);
		} else if (r->seg[k] && r->seg[k] != r->globals.map) {
			(void)munmap(r->seg[k], r->seg_sz[k]);
		}
		r->seg[k] = NULL;
		if (r->seg_ts[k] && (how == DROP_ALL || how == DROP_PARENT)) {
			(void)munmap(r->seg_ts[k], r->seg_ts_sz[k]);
			r->seg_ts[k] = NULL;
		} else if (r->seg_ts[k]) {
			(void)madvise(r->seg_ts[k], r->seg_ts_sz[k], MADV_DONTNEED);
		}
	}
}

/* -- The threads, and the release of memory no session uses ------------------------------- */

static struct udt_tls *threads;     /* protected by threads_lock */
static uint32_t threads_lock;
static bool threads_untracked;      /* a thread was never added: never unmap */

static void threads_lock_take(void)
{
	spin_take(&threads_lock);
}

static void threads_lock_drop(void)
{
	spin_drop(&threads_lock);
}

void udt__threads_add(struct udt_tls *t)
{
	/* (in a fire: a signal handler's fire in this thread is nested, and never waits here) */
	threads_lock_take();
	t->prev = NULL;
	t->next = threads;
	if (threads)
		threads->prev = t;
	threads = t;
	t->listed = true;
	threads_lock_drop();
}

void udt__threads_remove(struct udt_tls *t)
{
	if (!t->listed)
		return;
	threads_lock_take();
	if (t->prev)
		t->prev->next = t->next;
	else
		threads = t->next;
	if (t->next)
		t->next->prev = t->prev;
	t->listed = false;
	threads_lock_drop();
}

void udt__threads_untracked(void)
{
	STORE_RELAXED(&threads_untracked, true);
}

/*
 * Is a listed thread (but self) inside a fire? Every fire stores its
 * thread's depth and then reads the live bytes again (fire.c): after the
 * barrier below, a thread either is seen in its fire, or sees its session
 * over and leaves it. A thread listed after the scan reads the live bytes
 * after the lock (record.c), and leaves too.
 */
static bool threads_busy(struct udt_tls *self)
{
	bool busy = false;

	/* (the expedited barrier only where the process registered for it: else it is none) */
	if (LOAD_RELAXED(&threads_untracked) ||
	    syscall(SYS_membarrier, LOAD_RELAXED(&mb_registered) ? MEMBARRIER_CMD_GLOBAL_EXPEDITED
								 : MEMBARRIER_CMD_GLOBAL, 0, 0))
		return true;
	threads_lock_take();
	for (struct udt_tls *t = threads; t && !busy; t = t->next)
		busy = t != self && LOAD_RELAXED(&t->depth);
	threads_lock_drop();
	return busy;
}

bool udt__sessions_release(struct udt_tls *self)
{
	uint32_t mine = 0;
	bool left = false;

	/* the slots whose session is over and whose memory is still mapped: ours to unmap
	   (shm_state CREATING meanwhile, so that no next session makes its own over it) */
	for (uint32_t s = 0; s < UDT_SLOT_MAX; s++) {
		struct udt_control *c = &udt__ctl.slots[s];
		uint32_t st = UDT_SHM_READY;

		if (udt__active(c) || !udt__slot_rt[s].seg[0])
			continue;
		if (__atomic_compare_exchange_n(&c->shm_state, &st, UDT_SHM_CREATING, false,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			mine |= 1u << s;
		else
			left = true;
	}
	uint32_t buried = graves_seen();
	bool busy = (mine || buried) && threads_busy(self);
	for (uint32_t s = 0; s < UDT_SLOT_MAX; s++) {
		struct udt_control *c = &udt__ctl.slots[s];

		if (!(mine & (1u << s)))
			continue;
		if (!busy)
			drop_memory(c, DROP_UNMAP);
		/* pairs with the acquire loads of shm_state */
		STORE_RELEASE(&c->shm_state, busy ? UDT_SHM_READY : UDT_SHM_NONE);
	}
	if (buried && !busy)
		graves_unmap(buried);
	if (busy || left || graves_seen())
		return false;
	for (uint32_t s = 0; s < UDT_SLOT_MAX; s++)
		if (udt__active(&udt__ctl.slots[s]) || udt__slot_rt[s].seg[0])
			return false;
	/* no session has any memory: the fault handler goes too (no thread is in a fire) */
	if (!self && !threads_busy(NULL))
		udt__safe_disarm();
	return true;
}

/* Has a session that is over its memory still mapped? */
static bool ended_mapped(void)
{
	if (graves_seen())
		return true;
	for (uint32_t s = 0; s < UDT_SLOT_MAX; s++)
		if (!udt__active(&udt__ctl.slots[s]) && LOAD_RELAXED(&udt__slot_rt[s].seg[0]))
			return true;
	return false;
}

void udt__sessions_release_ended(void)
{
	struct udt_tls *self = &udt__tls;

	/* (a dead consumer's session: nothing else would unmap its memory, resident with
	   the records it never read, until a consumer syncs or the slot is taken again) */
	if (self->depth || !ended_mapped())
		return;
	/* as in a fire: a probe of a signal handler meanwhile is nested (lost, counted), and
	   never waits for a lock this thread holds here */
	self->depth = 1;
	COMPILER_BARRIER();
	for (int i = 0; i < 10 && ended_mapped(); i++) {
		struct timespec ms = { 0, 1000000 };
		if (i)
			(void)syscall(SYS_nanosleep, &ms, NULL);
		(void)udt__sessions_release(self);
	}
	COMPILER_BARRIER();
	self->depth = 0;
}

/*
 * A fork child's memory is its own, and dtrace maps it a moment after it is
 * made: a child that then ends by _exit() or exec (which run nothing of
 * ours, unlike exit(): udt_fini()) would take its first records with it. So
 * the fire that made it waits for dtrace's map, once, where dtrace is told
 * of forks as they happen (UDT_CTL_FORKWAIT; a few milliseconds): on the
 * memory's `mapped` word, a futex dtrace wakes (the memory is shared: a
 * fork storm's children sleep, and leave the CPUs to dtrace). Not for ever:
 * 1 s (a dtrace stopped), and every 10 ms the flag is looked at (dtrace
 * clears it in a child it will not follow) and whether dtrace is still there
 * (one killed never maps it).
 */
static void await_ack(struct udt_control *c, struct udt_shm_hdr *shm, uint32_t session)
{
	struct udt_slot_rt *r = &udt__slot_rt[udt__slot_of(c)];
	struct timespec slice = { 0, 10000000 };

	if (!r->await_ack)
		return;
	r->await_ack = false;
	for (int i = 0; i < 100 && !LOAD_ACQUIRE(&shm->mapped) && udt__active(c) &&
			LOAD_RELAXED(&c->session) == session &&
			(LOAD_RELAXED(&c->flags) & UDT_CTL_FORKWAIT) &&
			!(kill(LOAD_RELAXED(&c->consumer_pid), 0) && errno == ESRCH);
	     i++)
		(void)syscall(SYS_futex, &shm->mapped, FUTEX_WAIT, 0, &slice, NULL, 0);
}

__attribute__((noinline, cold)) void udt__wake_shm(struct udt_shm_hdr *shm)
{
	(void)syscall(SYS_futex, &shm->wake, FUTEX_WAKE, INT32_MAX, NULL, NULL, 0);
}

void udt__wake_consumer(uint32_t slot)
{
	struct udt_shm_hdr *shm = LOAD_RELAXED(&udt__slot_rt[slot].shm);

	/* (a stale address: EFAULT, or a spurious wake of whoever waits there, which futex
	   waiters allow for) */
	if (shm)
		udt__wake_shm(shm);
}

struct udt_shm_hdr *udt__shm_get(struct udt_control *c, uint32_t session)
{
	uint32_t st = LOAD_ACQUIRE(&c->shm_state);

	for (;;) {
		/*
		 * Another thread is making it (a few system calls): wait, rather
		 * than lose the fire. Never this thread (its fires nested in that
		 * one are lost as nested), and not for ever (a thread stopped
		 * mid-way).
		 */
		if (st == UDT_SHM_CREATING)
			st = wait_made(&c->shm_state);
		if (st == UDT_SHM_READY && LOAD_RELAXED(&c->shm_session) == session) {
			/* the consumer has mapped it: give the process its descriptor back */
			if (LOAD_RELAXED(&c->shm_acked) == session &&
			    LOAD_RELAXED(&c->shm_fd) >= 0) {
				int fd = __atomic_exchange_n(&c->shm_fd, -1, __ATOMIC_RELAXED);
				if (fd >= 0)
					close(fd);
			}
			return (struct udt_shm_hdr *)(uintptr_t)LOAD_RELAXED(&c->shm_addr);
		}
		if (st == UDT_SHM_CREATING || (LOAD_RELAXED(&c->shm_session) == session &&
					       st == UDT_SHM_FAILED))
			return NULL;
		if (__atomic_compare_exchange_n(&c->shm_state, &st, UDT_SHM_CREATING, false,
						__ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE))
			break;
		/* another thread began to make it since st was read (st is its state now):
		   as if it had been seen (a fire lost here was one of 100 threads' first, at
		   once: tests/integration/threads.sh) */
	}
	/* the previous session's: unmapped if no other thread is in a fire, else given back
	   (and unmapped later); so are those given back before */
	if (st == UDT_SHM_READY || graves_seen()) {
		uint32_t buried = graves_seen();
		bool busy = threads_busy(&udt__tls);
		if (st == UDT_SHM_READY)
			drop_memory(c, busy ? DROP_GIVE_BACK : DROP_UNMAP);
		if (!busy && buried)
			graves_unmap(buried);
	}
	int err = shm_create(c, session);
	if (err) {
		STORE_RELAXED(&c->shm_errno, -err);
		STORE_RELAXED(&c->shm_session, session);
		STORE_RELEASE(&c->shm_state, UDT_SHM_FAILED);
		return NULL;
	}
	struct udt_shm_hdr *shm = (struct udt_shm_hdr *)(uintptr_t)LOAD_RELAXED(&c->shm_addr);
	await_ack(c, shm, session);
	return shm;
}

/*
 * We are a fork child (the canary was wiped): what the parent compared is
 * not ours. One thread forgets it (the others, started in the child, have
 * nothing to forget); each slot's session is compared again at its next
 * fire.
 */
static void forget_parent(struct udt_canary *k)
{
	struct udt_tls *t = &udt__tls;

	if (!__atomic_compare_exchange_n(&udt__fork_canary, &k, NULL, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE))
		return;
	(void)munmap(k, 4096);
	udt__safe_set_pid(udt__safe_getpid());
	for (uint32_t s = 0; s < UDT_SLOT_MAX; s++) {
		t->slot[s] = NULL;
		t->slot_session[s] = 0;
	}
	t->tid = 0;
	/* the parent's threads are not here: this one is the child's only one; and the child
	   has registered for no barrier */
	threads = NULL;
	t->listed = false;
	threads_lock_drop();
	STORE_RELAXED(&mb_registered, false);
}

/*
 * The view of slot c's session's shared memory that a fork child inherited
 * (its parent's: MAP_SHARED, so a write would land in the parent's
 * buffers) goes, with the child's copy of its threads' states: the slot's
 * memory is none (take: a failed one too, for the child to try again).
 */
static void drop_parent_memory(struct udt_control *c, uint32_t session, bool take)
{
	uint32_t st = LOAD_ACQUIRE(&c->shm_state);
	struct udt_slot_rt *r = &udt__slot_rt[udt__slot_of(c)];

	/* (being made: by the parent, when it forked) */
	if (st == UDT_SHM_CREATING || (take && st == UDT_SHM_FAILED))
		(void)__atomic_compare_exchange_n(&c->shm_state, &st, UDT_SHM_NONE, false,
						  __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
	else if (st == UDT_SHM_READY && LOAD_RELAXED(&c->shm_session) == session &&
		 __atomic_compare_exchange_n(&c->shm_state, &st, UDT_SHM_NONE, false,
					     __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
		/* a child that takes the session keeps the globals of the process it began in:
		   its parent's (its parent's own, when the parent began it) */
		if (take && r->seg[0] && !(r->globals.map && r->globals.session == session)) {
			const struct udt_shm_hdr *h = (const void *)r->seg[0];
			if (r->globals.map)
				(void)munmap(r->globals.map, r->globals.map_sz);
			r->globals = (struct udt_globals){
				.map = r->seg[0],
				.map_sz = r->seg_sz[0],
				.session = session,
				.gvars = (uint64_t *)(void *)(r->seg[0] + h->gvar_off),
				.ngvars = (uint32_t)h->ngvars,
				.gstrs = h->gstr_off ? r->seg[0] + h->gstr_off : NULL,
			};
		}
		drop_memory(c, take ? DROP_PARENT : DROP_ALL);
	}
}

/*
 * Slot c's session is our parent's (a fork child, or a child of clone
 * without CLONE_VM), and its consumer does not follow forks: its buffers are
 * not ours to write, so this process's view of them goes at once; its
 * copies of the semaphores and dispatch pointers are undone, and the slot
 * marked FORKED, under the consumers' lock (while one holds it, the slot is
 * only skipped: the next fire of the slot tries again).
 */
static void leave_inherited(struct udt_control *c, uint32_t session)
{
	drop_parent_memory(c, session, false);
	int lock = attach_trylock();
	if (lock != -1) {
		if (end_state(c, session, UDT_STATE_FORKED))
			undo_enablings(c);
		attach_unlock(lock);
	}
	udt__sites_sync(false); /* our int3s in this copy of the text: those no session of ours has */
}

/*
 * Slot c's session is our parent's and its consumer follows forks
 * (UDT_CTL_FOLLOW): it becomes this process's, with the same enablings (the
 * area, the semaphores, the dispatch pointers and the patched SystemTap
 * sites are our copies already) and memory of its own, made at the next
 * fire as for any session. One thread does it: it moves pid from the
 * parent's to -pid (a compare-and-swap), drops the parent's memory, clears
 * what was the parent's (the consumer's acknowledgement of that memory,
 * the count of lost fires, the armed timers, which a child does not
 * inherit), and then publishes pid (release: a thread, or the consumer,
 * that reads our pid there sees the rest done). The consumer finds the
 * child (the kernel's fork events, or /proc) and maps the memory; until it
 * has, a child that exits waits for it at exit (udt_fini()). A consumer that never
 * comes leaves the session to the child's deadman.
 * Return: true when the session is ours; false while another thread of
 * ours is taking it (that fire skips it).
 */
static bool take_inherited(struct udt_control *c, uint32_t session, int32_t pid)
{
	int32_t parent = LOAD_ACQUIRE(&c->pid);

	if (parent == pid)
		return true;
	if (parent == -pid || !__atomic_compare_exchange_n(&c->pid, &parent, -pid, false,
							   __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return parent == pid;
	drop_parent_memory(c, session, true);
	udt__slot_rt[udt__slot_of(c)].await_ack = LOAD_RELAXED(&c->flags) & UDT_CTL_FORKWAIT;
	STORE_RELAXED(&c->shm_acked, 0);
	STORE_RELAXED(&c->lost, 0);
	STORE_RELAXED(&c->prof_armed, 0);
	/* pairs with the acquire loads of pid (above, and the consumer's reads) */
	STORE_RELEASE(&c->pid, pid);
	/* the profile provider's timers are the parent's: ours are armed now (profile.c) */
	const struct udt_area_hdr *ah = (const void *)udt__area(c, LOAD_RELAXED(&c->area));
	if (ah->prof_cnt)
		udt__profile_sync(false);
	return true;
}

int udt__shares_mm(int pid)
{
	struct udt_canary *k = LOAD_ACQUIRE(&udt__fork_canary);

	/* pid's canary is wiped in a fork child's copy of the memory, not in memory shared */
	if (k && LOAD_RELAXED(&k->pid) == pid)
		return LOAD_RELAXED(&k->alive) ? 1 : 0;
	/* (the kernel itself: errno is the application's) */
	long r = udt__sys(SYS_kcmp, udt__sys(SYS_getpid, 0, 0, 0, 0, 0, 0), pid, KCMP_VM, 0, 0, 0);
	return r == 0 ? 1 : r > 0 ? 0 : -1;
}

bool udt__forked_slow(struct udt_control *c, uint32_t session)
{
	struct udt_canary *k = LOAD_ACQUIRE(&udt__fork_canary);

	if (k && !LOAD_RELAXED(&k->alive))
		forget_parent(k);
	/* this session's first fire here: are we the process it attached to? */
	int pid = udt__safe_getpid();
	if (pid != LOAD_ACQUIRE(&c->pid)) {
		/* a vfork child: the session's process's memory (its pid, its canary), whose
		   session it fires in; or not known to be another's: it touches nothing */
		int shared = udt__shares_mm((int)LOAD_RELAXED(&c->pid));
		if (shared)
			return shared < 0;
		if (!(LOAD_RELAXED(&c->flags) & UDT_CTL_FOLLOW)) {
			leave_inherited(c, session);
			return true;
		}
		if (!take_inherited(c, session, pid))
			return true;
	}
	udt__safe_set_pid(pid);
	if (!(k = LOAD_ACQUIRE(&udt__fork_canary))) {
		struct udt_canary *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
					       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (page == MAP_FAILED)
			return false;
		if (madvise(page, 4096, MADV_WIPEONFORK)) {
			/* an old kernel: no canary, so every fire asks for the pid (slower, still right) */
			munmap(page, 4096);
			return false;
		}
		page->alive = 1;
		page->pid = pid;
		k = NULL;
		if (__atomic_compare_exchange_n(&udt__fork_canary, &k, page, false, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE))
			k = page;
		else
			munmap(page, 4096); /* another thread made one first */
	}
	STORE_RELAXED(&k->ours[udt__slot_of(c)], session);
	return false;
}

/*
 * The -c handshake on fd (one end of a socket pair): tell the consumer we are
 * loaded ('R') and wait for it to attach. It then asks for the session's
 * buffers now ('S'): we make them and say so ('M'), so that it maps them
 * before main() runs and a command that dies at once leaves its records
 * behind. Its 'G' lets the program go. ms: how long to wait for each reply
 * (-1: as long as the consumer keeps its end). fd is closed.
 */
static void handshake(int fd, int ms)
{
	char b = 'R';

	for (;;) {
		struct pollfd pfd = { fd, POLLIN, 0 };
		ssize_t n;
		int r;

		if (send(fd, &b, 1, MSG_NOSIGNAL) != 1)
			break;
		while ((r = poll(&pfd, 1, ms)) < 0 && errno == EINTR)
			;
		if (r != 1)
			break;
		while ((n = read(fd, &b, 1)) < 0 && errno == EINTR)
			;
		if (n != 1 || b != 'S')
			break;
		for (uint32_t i = 0; i < UDT_SLOT_MAX; i++) {
			struct udt_control *c = &udt__ctl.slots[i];
			if (udt__active(c))
				(void)udt__shm_get(c, LOAD_RELAXED(&c->session));
		}
		udt__profile_sync(true); /* the profile provider's timers, if it has any */
		b = 'M';
	}
	close(fd);
}

/* The descriptor number in environment variable name (a prefix "N" of "N:..."), or -1. */
static int env_fd(const char *name, const char **rest)
{
	/* (not in a set-id program: its environment is its caller's, not to be trusted) */
	const char *s = secure_getenv(name);
	char *end;
	long fd;

	if (!s)
		return -1;
	fd = strtol(s, &end, 10);
	if (end == s || fd < 3 || fd > 65535)
		return -1;
	if (rest)
		*rest = end;
	else if (*end)
		return -1;
	return (int)fd;
}

/*
 * dtrace -c starts its command with UDTRACE_SYNC_FD, the handshake's
 * descriptor, which this process alone uses; and, where it follows the
 * command's descendants, with UDTRACE_FOLLOW_FD ("N:PID": a SOCK_SEQPACKET
 * socket whose other end is dtrace PID's), which they all inherit. A new
 * image of theirs with the runtime (dtrace preloads it, and children keep
 * LD_PRELOAD) sends dtrace one end of a socket pair of its own on that
 * socket (the kernel adds our pid) and does the handshake on the other
 * before main(), so that a program a shell runs (system(), popen()) is
 * traced from its start, as DTrace registers a new image's probes before
 * main (docs/processes.md). 2 s at most a reply: a dtrace stopped or gone
 * holds nobody up for long.
 */
static void sync_with_consumer(void)
{
	const char *rest = NULL;
	int fd = env_fd("UDTRACE_SYNC_FD", NULL);

	if (fd >= 0 || secure_getenv("UDTRACE_SYNC_FD")) {
		unsetenv("UDTRACE_SYNC_FD"); /* not for this process's children */
		if (fd >= 0)
			handshake(fd, -1);
		return;
	}
	fd = env_fd("UDTRACE_FOLLOW_FD", &rest);
	if (fd < 0 || *rest != ':')
		return;
	/* the socket dtrace made, not a descriptor reused since (a program may close it) */
	struct ucred peer;
	socklen_t len = sizeof(peer);
	int type = 0;
	socklen_t tlen = sizeof(type);
	char *end;
	long dpid = strtol(rest + 1, &end, 10);
	if (*end || dpid <= 0 || getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tlen) ||
	    type != SOCK_SEQPACKET || getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &len) ||
	    peer.pid != (pid_t)dpid)
		return;
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return;
	char b = 'N';
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} u;
	struct iovec iov = { &b, 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
			    .msg_controllen = sizeof(u.buf) };
	memset(&u, 0, sizeof(u));
	struct cmsghdr *h = CMSG_FIRSTHDR(&m);
	h->cmsg_level = SOL_SOCKET;
	h->cmsg_type = SCM_RIGHTS;
	h->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(h), &sv[1], sizeof(int));
	bool sent = sendmsg(fd, &m, MSG_NOSIGNAL | MSG_DONTWAIT) == 1;
	close(sv[1]);
	if (sent)
		handshake(sv[0], 2000);
	else
		close(sv[0]);
}

/*
 * At exit, a session whose buffers (or a segment of them) the consumer has not
 * mapped yet would take its records with it (a short command under dtrace -c). Give the consumers a
 * moment to map them; once mapped they outlive the process.
 */
__attribute__((destructor)) static void udt_fini(void)
{
	struct timespec ms = { 0, 1000000 };

	for (int i = 0; i < 2000; i++) {
		bool waiting = false;

		for (uint32_t s = 0; s < UDT_SLOT_MAX && !waiting; s++) {
			struct udt_control *c = &udt__ctl.slots[s];
			uint32_t session = LOAD_ACQUIRE(&c->session);

			struct udt_shm_hdr *h = LOAD_RELAXED(&udt__slot_rt[s].shm);

			if (!udt__active(c) || LOAD_ACQUIRE(&c->shm_state) != UDT_SHM_READY ||
			    c->shm_session != session)
				continue;
			waiting = LOAD_ACQUIRE(&c->shm_acked) != session;
			/* and the segments of its buffers */
			for (uint32_t k = 1; k < UDT_SEG_MAX && h && h->session == session; k++)
				waiting |= LOAD_ACQUIRE(&h->seg_state[k]) == UDT_SHM_READY &&
					   !LOAD_ACQUIRE(&h->seg_acked[k]);
		}
		if (!waiting)
			return;
		/* (dtrace's idle pace is slow: it is asked for a round, every 10 ms) */
		if (i % 10 == 0)
			for (uint32_t s = 0; s < UDT_SLOT_MAX; s++)
				if (udt__active(&udt__ctl.slots[s]))
					udt__wake_consumer(s);
		nanosleep(&ms, NULL);
	}
}

__attribute__((constructor(101))) static void udt_init(void)
{
	udt__register_loaded(); /* before a consumer of dtrace -c looks at the registry */
	sync_with_consumer();
}
