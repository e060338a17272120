/* SPDX-License-Identifier: MIT */
/*
 * runtime: libudtrace, in the target. It owns what only runs there: the
 * registry of probe tables, sessions and their slots, the per-thread
 * buffers, the fire, SystemTap sites and their trampolines, the profile
 * provider's timers, user stacks, dynamic providers and SDT(9). This header
 * is its private interface, shared by its files and nothing else; its public
 * one is sdk/'s udtrace.h. It includes abi/ (what it shares with dtrace),
 * vm/ (the D machine it runs clauses with) and sdk/; never dtrace's rooms
 * (consumer/, proc/, probes/, output/, dlang/) nor util/, which is not in
 * the target (docs/layout.md).
 */
#ifndef UDT_RUNTIME_INTERNAL_H
#define UDT_RUNTIME_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "abi/abi.h"
#include "abi/bytecode.h"
#include "vm/vm.h"
#include "abi/probe_table.h"
#include "vm/safe.h"
#include "vm/spec.h"

#define UDT_EXPORT __attribute__((visibility("default")))

/* Relaxed and acquire/release access to fields the other side also touches. */
#define LOAD_RELAXED(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#define LOAD_ACQUIRE(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define STORE_RELAXED(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)
#define STORE_RELEASE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
/* Keeps the compiler from moving memory accesses across it (the CPU may). */
#define COMPILER_BARRIER() __asm__ __volatile__("" ::: "memory")

extern struct udt_ctlblock udt__control;
/* The same object, as the runtime's own code reaches it: without the GOT (exported, udt__control
   could be interposed, so each use loaded its address first: a load on the probe path) */
extern struct udt_ctlblock udt__ctl __attribute__((visibility("hidden")));

/* The index of slot c in the control block. */
static inline uint32_t udt__slot_of(const struct udt_control *c)
{
	return (uint32_t)(c - udt__ctl.slots);
}

/* Slot c's live byte (struct udt_ctlhdr): 1 while its session is ACTIVE. */
static inline uint8_t *udt__live_of(struct udt_control *c)
{
	return &udt__ctl.hdr.live[udt__slot_of(c)];
}

/* Is slot c's session live (acquire: pairs with the consumer's write of it after the rest)? */
static inline bool udt__active(struct udt_control *c)
{
	return LOAD_ACQUIRE(udt__live_of(c)) != 0;
}

/* Slot c's enabling area idx (0 or 1). */
static inline uint8_t *udt__area(struct udt_control *c, uint32_t idx)
{
	return udt__ctl.areas[udt__slot_of(c)][idx & 1];
}

/* The same, by the slot's index. */
static inline uint8_t *udt__area_at(uint32_t slot, uint32_t idx)
{
	return udt__ctl.areas[slot][idx & 1];
}

/* The registry (registry.c). */
#define UDT_REG_MAX 1024

struct udt_registry {
	uint32_t size;            /* sizeof(struct udt_registry) */
	uint32_t cnt;             /* slots used; grows only */
	uint32_t gen;             /* bumped at every register and unregister */
	uint32_t pad;
	struct udt_reg_slot {
		uint64_t table;   /* address of a struct udt_table_hdr; 0 once unregistered */
	} slots[UDT_REG_MAX];
};

extern struct udt_registry udt__registry;

/*
 * A thread's state in one session: its buffer and the caches of its fires.
 * Each session has a region of them, private to the process (session.c:
 * one per thread buffer, made with the shared memory), so that the static
 * TLS holds only a pointer per slot.
 */
struct udt_tslot {
	uint32_t session;         /* the session it belongs to (0: none) */
	uint32_t ntvars;
	struct udt_tbuf *tb;      /* this thread's buffer pair */
	uint8_t *data;            /* its two halves */
	struct udt_shm_hdr *shm;  /* the shared memory they are in */
	uint8_t *agg;             /* its two aggregation tables (struct udt_agghdr), or NULL */
	uint64_t aggsize;         /* the bytes of each, as the runtime laid the memory out */
	uint64_t *tvars;          /* its thread-local variables (self->), or NULL */
	uint8_t *tlocal;          /* its strings and scratch (vars.c), or NULL */
	uint64_t ring_end;        /* ring: the end of the chunk the head is in (monotonic) */
	uint64_t ring_lap;        /* and the monotonic position of the half's start on this lap */
	uint64_t ring_chunk;      /* the chunk's bytes (record.c) */
	struct udt_spectab spec;  /* the session's speculations (n 0: none) */
	/* the probe of this thread's last fire in the session (fire.c: find_ecbs()) */
	uint64_t hit_sem;         /* its key, or UDT_NO_KEY: none */
	const struct udt_ecb *hit_ecb;     /* its first ECB */
	const struct udt_ecb *hit_ecbs;    /* the ECBs of its generation */
	const uint8_t *hit_area;
	/* the light predicate this thread evaluated last, decoded (fire.c: light_pred()) */
	uint32_t shape_pred;               /* its DIFO's offset in shape_area */
	const uint8_t *shape_area;         /* NULL: none */
	struct udt_shape shape;            /* load 0: not of the shape */
	/* the session's global variables and strings: in shm, or a fork child's shared
	   with the process the session began in (struct udt_globals) */
	uint64_t *gvars;
	uint32_t ngvars;
	uint8_t *gstrs;
};

/* Per-thread state, in static TLS (initial-exec: no allocation on first use). */
struct udt_tls {
	uint32_t depth;           /* > 0 while this thread runs the runtime: no recursion */
	bool quiet;               /* it patches sites (sites.c): the probes it meets are its own */
	uint8_t traps;            /* the SIGTRAP handlers it is in (sites.c: nested, they fire none) */
	int32_t tid;
	int *errp;                /* this thread's errno */
	uint64_t rand[2];         /* rand()'s state (subr.c) */
	uint64_t chill_mark, chilled; /* chill()'s budget of this second (udt__chill()) */
	const volatile int32_t *cpu_id; /* its rseq cpu_id, or NULL (set with tb: udt__getcpu_at()) */
	/*
	 * Its state in each slot's session, or NULL, and which session that is: a
	 * state is this thread's only in the session slot_session[] names. (The
	 * states of a slot's older session stay mapped, zeroed, and the slot's
	 * next session gives them to its threads: a pointer of an older session
	 * may point at another thread's state of this one.) udt__tslot_of().
	 */
	struct udt_tslot *slot[UDT_SLOT_MAX];
	uint32_t slot_session[UDT_SLOT_MAX];
	bool exit_hooked;         /* its exit gives its buffers back (record.c) */
	/* the lock operation under way in it, as the plockstat sites saw it (plockstat.c) */
	struct udt_lockop {
		uint64_t lock;        /* the mutex or rwlock */
		uint64_t fn;          /* the function it began in (0: none under way) */
		uint64_t sp;          /* %rsp at its entry */
		uint32_t spins;       /* pauses of its spin loop */
		uint8_t role;         /* its entry's: enum udt_lock_role */
		uint8_t spun;         /* 1: mutex-spin fired; 2: and mutex-spun */
		bool blocked;         /* its block probe fired */
	} lockop;
	uint64_t out_arg;         /* pthread_create()'s or posix_spawn()'s first argument, while it
				     runs (proc.c) */
	int32_t new_tid;          /* the thread pthread_create() made, as clone3 returned it */
	/* the threads that may be inside a session's memory (session.c: udt__threads_add()) */
	bool listed;
	struct udt_tls *prev, *next;
};

/*
 * The runtime's own state of each slot (session.c): what it checked of the
 * slot's session, and its memory.
 */
/*
 * A fork child's view of the memory of the process its session began in (the
 * ancestor dtrace attached to), mapped since before the fork (MAP_SHARED):
 * the child, and its own forks, use that memory's global variables and
 * strings, so that a process tree has one set of globals, as DTrace's
 * system has (its buffers, aggregations, self-> and dynamic variables are
 * its own). The offsets are read once, when the child takes the session.
 */
struct udt_globals {
	uint8_t *map;             /* NULL: none */
	uint64_t map_sz;
	uint32_t session;
	uint64_t *gvars;
	uint32_t ngvars;
	uint8_t *gstrs;           /* NULL: the session has no global strings */
};

struct udt_slot_rt {
	uint32_t verified;        /* the session whose enablings were verified (fire.c) */
	uint64_t verified_gens;   /* the newest generation verified: session << 32 | offset */
	struct udt_shm_hdr *shm;  /* the current session's shared memory, once made */
	/* its segments (0: the memory shm is the header of) where this process maps them,
	   their bytes, and their threads' states (struct udt_tslot[udt_seg_tbufs()]) */
	uint8_t *seg[UDT_SEG_MAX];
	uint64_t seg_sz[UDT_SEG_MAX];
	struct udt_tslot *seg_ts[UDT_SEG_MAX];
	uint64_t seg_ts_sz[UDT_SEG_MAX];
	bool await_ack;           /* a fork child that took the session: its memory's first
				     making waits for the consumer's map (UDT_CTL_FORKWAIT) */
	struct udt_globals globals;
} __attribute__((aligned(64)));

extern struct udt_slot_rt udt__slot_rt[UDT_SLOT_MAX] __attribute__((visibility("hidden")));

extern __thread struct udt_tls udt__tls __attribute__((tls_model("initial-exec")));

/* A thread state's cache of no probe (udt_tslot.hit_sem: no fire has key UINT64_MAX). */
#define UDT_NO_KEY UINT64_MAX

/* Thread t's state in slot's session `session`, or NULL (struct udt_tls.slot[]). */
static inline struct udt_tslot *udt__tslot_of(const struct udt_tls *t, uint32_t slot,
					      uint32_t session)
{
	return t->slot_session[slot] == session ? t->slot[slot] : NULL;
}

/* fire.c: what udt__dispatch points to while a session has probes enabled (docs/format.md §1) */
void udt__fire(const volatile unsigned short *sem, unsigned nargs, uint64_t a0, uint64_t a1,
	       uint64_t a2, uint64_t a3);
/* The same for a SystemTap site (sites.c): ECBs keyed by key, nargs values at args, the site pc. */
void udt__fire_at(uint64_t key, unsigned nargs, const uint64_t *args, uint64_t pc);
/* A fire of probe key (a profile probe's: UDT_PROF_KEY) in slot's session only, if ACTIVE. */
void udt__fire_in(uint32_t slot, uint64_t key, unsigned nargs, uint64_t a0, uint64_t a1);

/*
 * A site with a part (UDT_PART()) reached at pc with the registers gpr: a lock
 * operation's (plockstat.c: udt__lock_fire()), a process's life's (proc.c).
 */
void udt__part_fire(uint64_t part, const uint64_t *gpr, uint64_t pc);
/* In a fire: len bytes of the application at src into dst, fault-safe. 0, or -EFAULT. */
static inline int udt__fire_read(void *dst, uint64_t src, size_t len)
{
	udt__safe_fire_begin();
	int err = udt__safe_copy(dst, src, len);
	udt__safe_fire_end();
	return err;
}
void udt__lock_fire(uint64_t part, const uint64_t *gpr, uint64_t pc);
void udt__proc_fire(uint64_t part, const uint64_t *gpr, uint64_t pc);

/* session.c */
struct udt_shm_hdr *udt__shm_get(struct udt_control *c, uint32_t session);
/*
 * Ask slot's consumer for a round soon: a wake of its memory's futex, which
 * dtrace waits on (udt_shm_hdr.wake), if the session has memory. Outside a
 * fire: only the system call touches the memory, which may be gone (EFAULT).
 */
void udt__wake_consumer(uint32_t slot);
/* The same for memory shm (mapped: in a fire, or its maker). */
void udt__wake_shm(struct udt_shm_hdr *shm);
/*
 * Segments 1 to k of the session of slot c, whose memory is shm: made by the
 * first thread that needs one (the others wait for it). False when one could
 * not be made. Descriptors the consumer has mapped are closed on the way.
 */
bool udt__seg_get(struct udt_control *c, struct udt_shm_hdr *shm, uint32_t k);
/*
 * The fork canary (session.c): a page of the process that MADV_WIPEONFORK
 * zeroes in a fork child. It says the process is the one that made it, and
 * for each slot the session whose pid was found to be this process's.
 */
struct udt_canary {
	uint32_t alive;                /* 1; 0 in a fork child */
	int32_t pid;                   /* the process that made it */
	uint32_t ours[UDT_SLOT_MAX];   /* each slot's session found to be ours, 0 none */
};

extern struct udt_canary *udt__fork_canary __attribute__((visibility("hidden")));
bool udt__forked_slow(struct udt_control *c, uint32_t session);
/*
 * Is this process's memory process pid's: a vfork() child's (posix_spawn(),
 * system()), or one cloned with CLONE_VM? Then nothing here is its own: it
 * fires as pid (illumos's fasttrap takes a vfork child's probes for its
 * parent's), and never ends, restores or unmaps anything of pid's (session.c).
 * 1 yes, 0 no, -1 unknown (no canary of pid's, and kcmp refused): then it
 * touches nothing of pid's either, and does not fire.
 */
int udt__shares_mm(int pid);

/*
 * Is slot c's session one this process inherited from its parent by fork?
 * (Then it is not ours: the fire skips it.) The canary's test inline, the
 * rest in session.c.
 */
static inline bool udt__forked(struct udt_control *c, uint32_t slot, uint32_t session)
{
	struct udt_canary *k = LOAD_ACQUIRE(&udt__fork_canary);

	if (k && LOAD_RELAXED(&k->ours[slot]) == session)
		return false;
	return udt__forked_slow(c, session);
}
/*
 * The threads that have taken a buffer, so that the memory of a session that
 * is over is unmapped only when none of them is inside a fire
 * (udt__sessions_release()). A thread is added at its first buffer (in a
 * fire), and removed at its exit (record.c).
 */
void udt__threads_add(struct udt_tls *t);
void udt__threads_remove(struct udt_tls *t);
/* A thread that cannot be removed at its exit was seen: memory is never unmapped then. */
void udt__threads_untracked(void);
/*
 * Unmap the memory of the sessions that are over, if no thread (but self, if
 * not NULL: it is in a fire of another session) is inside a fire; put the
 * fault handler back once no session has any. True if nothing is left.
 */
bool udt__sessions_release(struct udt_tls *self);
/*
 * udt__sessions_release() for a thread out of its fire whose deadman ended a
 * session: a few tries, a millisecond apart, while another thread is in a
 * fire (it leaves in microseconds). Nothing when no ended session has memory.
 */
void udt__sessions_release_ended(void);
/* Count a fire that could not be recorded in slot c's session. */
void udt__lost(struct udt_control *c);
/*
 * End slot c's session (why: UDT_STATE_DEADMAN, or DETACHED for enablings
 * that failed verification) if it is still that session, and undo what its
 * consumer set. Not done while a consumer holds the process's attach lock
 * (the next fire tries again).
 */
void udt__session_end(struct udt_control *c, uint32_t session, uint32_t why);
uint64_t udt__now_ns(void);

/*
 * The clock's reading at a fire, as records hold it: the TSC where the
 * consumer calibrated it, else ns of CLOCK_MONOTONIC (abi.h, udt_control).
 * The consumer scales the records' (not the probe path: 1.3 ns a fire).
 */
static inline uint64_t udt__clock(const struct udt_control *c)
{
#if defined(__x86_64__)
	if (LOAD_RELAXED(&c->tsc_mult)) {
		uint32_t lo, hi;

		__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
		return ((uint64_t)hi << 32) | lo;
	}
#endif
	return udt__now_ns();
}

/* A reading of udt__clock() in ns: D's timestamp. */
static inline uint64_t udt__clock_ns(const struct udt_control *c, uint64_t reading)
{
	uint64_t mult = LOAD_RELAXED(&c->tsc_mult);

	if (!mult)
		return reading;
	int64_t d = (int64_t)(reading - LOAD_RELAXED(&c->tsc_base));
	return LOAD_RELAXED(&c->tsc_ns) + (uint64_t)(((__int128)d * mult) >> 32);
}

/*
 * profile.c: arm the timers of the session's profile and tick probes, or
 * remove them when no session wants them (docs/profile.md). wait: may wait
 * (briefly) for another thread's handler; a handler never does.
 * Exported: the consumer calls it in a -p process by ptrace (docs/injection.md).
 * Async-signal-safe.
 */
UDT_EXPORT void udt__profile_sync(bool wait);

/*
 * registry.c: register the -G tables and SDT(9) providers of the objects
 * already loaded, found through their "udtrace" notes (docs/format.md §3).
 * The runtime's constructor calls it.
 */
void udt__register_loaded(void);
/*
 * sites.c: make the text agree with the session's SystemTap sites: patch
 * those it has, restore those it no longer has (docs/notes.md). wait: may
 * wait (briefly) for another thread's sync; a signal handler never does.
 * Async-signal-safe.
 */
void udt__sites_sync(bool wait);
/*
 * sigchain.c: hand signal sig, which is not ours, to the action o we
 * replaced, as the kernel would have without us (its mask, SA_SIGINFO or
 * not, SA_NODEFER, SA_RESETHAND; the default action by sending it again).
 * forced: the kernel forced it (a trap), so that an ignored one kills.
 * Async-signal-safe.
 */
#include <signal.h>
void udt__sig_chain(struct sigaction *o, bool forced, int sig, siginfo_t *si, void *uc);

/*
 * sites.c: the general registers (the x86 encoding's order) of the thread
 * at the trampolined SystemTap site whose fire runs in it, or NULL: ustack()
 * starts there.
 */
extern __thread const uint64_t *udt__site_gpr __attribute__((tls_model("initial-exec")));
/* The signal context of the fire running in this thread (a profile sample, a trapped
   SystemTap site), or NULL. */
extern __thread const void *udt__prof_uc __attribute__((tls_model("initial-exec")));

/*
 * ustack.c: the return addresses of this thread's stack, at most n, into pcs
 * (zero-filled after the last). From the profile fire's signal context, else
 * from the probe site whose return address is site_pc. Async-signal-safe.
 */
void udt__ustack(uint64_t *pcs, uint32_t n, uint64_t site_pc);
/*
 * ustack.c: ucaller, ustackdepth and uregs[] (UDT_SUBR_*) of the fire at
 * the probe site whose return address is site (or of the profile fire), for
 * vm/subr.c. Async-signal-safe.
 */
uint32_t udt__site_subr(uint64_t site, uint32_t which, uint64_t arg, uint64_t *ret);

int32_t udt__gettid(void);
uint32_t udt__getcpu_slow(void);

/*
 * The CPU this thread runs on. glibc (2.35 on) registers every thread for
 * restartable sequences, and the kernel keeps the rseq area's cpu_id current:
 * one load from the thread's TCB. Elsewhere, sched_getcpu().
 */
extern const ptrdiff_t __rseq_offset __attribute__((weak));
extern const unsigned int __rseq_size __attribute__((weak));

/* This thread's rseq cpu_id, or NULL where there is none (glibc did not register it). */
static inline const volatile int32_t *udt__rseq_cpu(void)
{
#if defined(__x86_64__)
	if (&__rseq_size && __rseq_size) {
		const char *tp;

		__asm__("mov %%fs:0, %0" : "=r"(tp));
		return (const volatile int32_t *)(tp + __rseq_offset + 4); /* rseq.cpu_id */
	}
#endif
	return NULL;
}

/* The CPU, from the rseq cpu_id the thread found once (udt_tls.cpu_id), if any. */
static inline uint32_t udt__getcpu_at(const volatile int32_t *cpu_id)
{
	if (cpu_id) {
		int32_t cpu = *cpu_id;
		if (cpu >= 0)
			return (uint32_t)cpu;
	}
	return udt__getcpu_slow();
}

static inline uint32_t udt__getcpu(void)
{
	return udt__getcpu_at(udt__rseq_cpu());
}



#endif /* UDT_RUNTIME_INTERNAL_H */
