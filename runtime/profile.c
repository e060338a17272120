/* SPDX-License-Identifier: MIT */
/*
 * The profile provider in the process: profile-n's timers, signal handler
 * and arming (docs/profile.md has the decisions and their limits; tick-n
 * runs in the consumer: a wall-clock signal into a process whose threads
 * all sleep would wake one, and its nanosleep() or poll() would return
 * EINTR).
 *
 * Mechanism. Nothing here exists until a session enables a profile probe.
 * Then udt__profile_sync() arms, from one of three places: the -c
 * handshake (session.c), a call the consumer injects with ptrace for -p
 * (proc/inject.c, docs/injection.md), or the session's first
 * fire of any probe (fire.c). Arming installs one SIGPROF handler (the
 * application's is kept, and called for every SIGPROF that is not ours) and
 * starts:
 *
 *  - for each profile-n probe and each thread, a clock of that thread's
 *    CPU time that signals that thread: a POSIX timer on the thread's CPU
 *    clock, which the kernel checks at its tick (CONFIG_HZ), so an expiry
 *    counts its overruns and the probe fires 1 + overruns times, as the
 *    chapter describes for systems of limited timer resolution; or, for
 *    intervals under 1 ms (faster than any kernel's tick) or when asked, a
 *    perf_event task clock (PERF_COUNT_SW_TASK_CLOCK, an hrtimer that runs
 *    only while the thread does, counting user time: the signal is raised
 *    only in user mode), where perf_event_open is allowed;
 *  - a census timer on the process's CPU clock (every 100 ms of CPU; the
 *    kernel, 6.4 on, signals the thread that was running): its handler
 *    reads /proc/self/task, arms the threads that appeared since and
 *    disarms those that went.
 *
 * Every timer's signal says whose it is: a POSIX timer's si_value points
 * into this file's state, a perf event's si_fd is in fd_probe[]. Anything
 * else is the application's, handed to the handler it had. Each of our
 * signals fires its probe through udt__fire() with the probe's key
 * (UDT_PROF_KEY) as the semaphore, arg0 = 0 and arg1 = the interrupted PC.
 *
 * Disarming deletes the timers, disables and closes the perf events, and
 * puts the application's handler back (after SIG_IGN, which discards our
 * signals still pending). It happens when the consumer detaches (it injects
 * a sync for -p; a -c command is killed), or, should the consumer die, at
 * the first of our signals after the deadman has ended the session.
 *
 * Invariants. All state is static (.bss: zero until a session arms), and
 * changed only under `lock`, a try-lock: a signal handler never waits for
 * it (it skips the census, or leaves the disarming to whoever holds it),
 * and the injected call waits a bounded time, and never for itself. Every
 * function here is async-signal-safe: system calls, no allocation, no stdio,
 * errno saved and restored. What can go wrong: perf_event_open refused
 * (the timers then), no /proc (only the threads whose census found it
 * unreadable, each its own), more than MAX_THREADS threads (the others are
 * not sampled), a fork child (it inherits the handler and the perf
 * descriptors, never our timers: its first sync forgets them without
 * touching its own timers).
 */
#include "runtime/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#define PROF_SIG SIGPROF
#define MAX_THREADS 4096
#define TID_HASH 8192             /* slots of the tid -> thread hash: twice MAX_THREADS */
#define FD_MAP 65536              /* perf descriptors above it are not used */
#define FD_HEADROOM 64            /* descriptors left to the application below its limit */
#define CENSUS_NS 100000000ull    /* the census timer: every 100 ms of the process's CPU */
#define MAX_BURST 100             /* fires for one signal, overruns included */

/* A sampled thread: its tid and, per profile probe, a perf descriptor or a timer. */
struct thr {
	int32_t tid;
	bool seen;                /* by the census running now */
	int32_t fd[UDT_PROF_MAX];    /* perf event, or -1 */
	int32_t timer[UDT_PROF_MAX]; /* kernel timer id, or -1 */
};

static struct {
	int32_t lock;             /* 0 free, else the tid that holds it */
	bool armed;               /* the handler and timers are there (acquire/release) */
	uint32_t seen[UDT_SLOT_MAX]; /* each slot's session the arming took in, 0 none */
	int32_t pid;              /* the process that armed (a fork child is not it) */
	uint32_t mode;            /* UDT_PROF_MODE_* */
	bool perf_refused;        /* perf_event_open failed for a reason that will not change */
	/* the probes of every session armed, in slot order, at most UDT_PROF_MAX in all */
	uint32_t nprof;
	struct udt_prof prof[UDT_PROF_MAX];
	uint64_t owner[UDT_PROF_MAX]; /* session << 32 | slot << 16 | its index there (relaxed) */
	bool perf[UDT_PROF_MAX];  /* timed by a perf event where allowed (its session's flags) */
	int32_t census_timer;
	bool handler;             /* ours is installed */
	struct sigaction old;     /* the application's action, called for its own signals */
	uint32_t nthreads;
	struct thr threads[MAX_THREADS];
	uint16_t hash[TID_HASH];  /* index + 1 of the thread with this tid, 0 empty */
	uint64_t nofile;          /* RLIMIT_NOFILE's soft limit at arming */
} prof;

/*
 * Which profile probe perf descriptor fd belongs to: index + 1, 0 not ours,
 * FD_STALE an event of ours since stopped (relaxed). A signal of a stopped
 * event can still reach the handler: the kernel took it, and chose our
 * handler, before the disarming (in another thread, or in this one when the
 * injected call that disarms stopped it on its way into the handler). It
 * is dropped: handed to the application's action, SIG_DFL, it would end
 * the process.
 */
#define FD_STALE 0xff
static uint8_t fd_probe[FD_MAP];

/* A census's reading of /proc/self/task (under the lock). */
static char dents[16384];
static int32_t seen_tids[MAX_THREADS];

/* The signal context of the profile fire running in this thread (ustack.c reads it). */
__thread const void *udt__prof_uc __attribute__((tls_model("initial-exec")));

static long sys(long nr, long a, long b, long c, long d, long e)
{
	return syscall(nr, a, b, c, d, e, 0);
}

static int32_t gettid_raw(void)
{
	return (int32_t)syscall(SYS_gettid);
}

/* -- The lock ------------------------------------------------------------------------------ */

static bool try_lock(int32_t tid)
{
	int32_t free_ = 0;

	return __atomic_compare_exchange_n(&prof.lock, &free_, tid, false, __ATOMIC_ACQUIRE,
					   __ATOMIC_RELAXED);
}

/* For the injected call: wait for a handler elsewhere to finish, not for ourselves. */
static bool lock_wait(int32_t tid)
{
	uint64_t t0 = udt__now_ns();

	/* sched_yield, not a sleep: a sleep may rewrite the restart block of a system call the
	   injected-into thread was stopped in (proc/inject.c) */
	while (!try_lock(tid)) {
		if (LOAD_RELAXED(&prof.lock) == tid)
			return false; /* we were stopped inside a handler that holds it */
		if (udt__now_ns() - t0 > 1000000000ull)
			return false;
		syscall(SYS_sched_yield);
	}
	return true;
}

static void unlock(void)
{
	STORE_RELEASE(&prof.lock, 0);
}

/* -- Timers and perf events ------------------------------------------------------------------ */

/* A POSIX timer (raw: the kernel's id, not glibc's timer_t) signalling with value tag. */
static int32_t timer_start(clockid_t clock, int notify, int32_t tid, const void *tag,
			   uint64_t ns)
{
	struct sigevent ev;
	int timer = -1;

	memset(&ev, 0, sizeof(ev));
	ev.sigev_notify = notify;
	ev.sigev_signo = PROF_SIG;
	ev.sigev_value.sival_ptr = (void *)(uintptr_t)tag;
	if (notify == SIGEV_THREAD_ID)
		ev._sigev_un._tid = tid;
	if (sys(SYS_timer_create, clock, (long)&ev, (long)&timer, 0, 0))
		return -errno;
	struct itimerspec its = {
		.it_interval = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) },
		.it_value = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) },
	};
	if (sys(SYS_timer_settime, timer, 0, (long)&its, 0, 0)) {
		int err = -errno;
		sys(SYS_timer_delete, timer, 0, 0, 0, 0);
		return err;
	}
	return timer;
}

/* The clock of another thread's CPU time (pthread_getcpuclockid's, from a tid). */
static clockid_t thread_cpu_clock(int32_t tid)
{
	return (clockid_t)((~(uint32_t)tid << 3) | 6); /* CPUCLOCK_PERTHREAD | CPUCLOCK_SCHED */
}

/*
 * A perf task clock of thread tid, sampling every ns of its user time, whose
 * overflows signal that thread. -errno when it cannot be had.
 */
static int perf_start(int32_t tid, uint64_t ns, uint32_t probe)
{
	struct perf_event_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.sample_period = ns;
	a.disabled = 1;
	a.exclude_kernel = 1; /* what an unprivileged process may count; and no EINTR (docs) */
	a.exclude_hv = 1;
	fd = (int)sys(SYS_perf_event_open, (long)&a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fd >= FD_MAP || (uint64_t)fd + FD_HEADROOM >= prof.nofile) {
		close(fd); /* leave the application its descriptors */
		return -EMFILE;
	}
	struct f_owner_ex owner = { F_OWNER_TID, tid };
	__atomic_store_n(&fd_probe[fd], (uint8_t)(probe + 1), __ATOMIC_RELAXED);
	if (fcntl(fd, F_SETSIG, PROF_SIG) || fcntl(fd, F_SETOWN_EX, &owner) ||
	    fcntl(fd, F_SETFL, O_ASYNC) || ioctl(fd, PERF_EVENT_IOC_ENABLE, 0)) {
		int err = -errno;
		__atomic_store_n(&fd_probe[fd], 0, __ATOMIC_RELAXED);
		close(fd);
		return err;
	}
	return fd;
}

/*
 * Stop a perf event. Disabling it and turning its signal off act on the event
 * itself, which a fork child's copy of the descriptor shares: a child only
 * closes its copy.
 */
static void perf_stop(int fd, bool child)
{
	if (!child) {
		(void)ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		(void)fcntl(fd, F_SETFL, 0);
	}
	if (fd < FD_MAP)
		__atomic_store_n(&fd_probe[fd], FD_STALE, __ATOMIC_RELAXED);
	close(fd);
}

/* -- Threads --------------------------------------------------------------------------------- */

static uint32_t tid_slot(int32_t tid)
{
	return ((uint32_t)tid * 0x9e3779b1u) & (TID_HASH - 1);
}

static struct thr *thread_find(int32_t tid)
{
	for (uint32_t s = tid_slot(tid), n = 0; n < TID_HASH; n++, s = (s + 1) & (TID_HASH - 1)) {
		uint16_t h = prof.hash[s];
		if (!h)
			return NULL;
		if (prof.threads[h - 1].tid == tid)
			return &prof.threads[h - 1];
	}
	return NULL;
}

static void hash_rebuild(void)
{
	memset(prof.hash, 0, sizeof(prof.hash));
	for (uint32_t i = 0; i < prof.nthreads; i++) {
		uint32_t s = tid_slot(prof.threads[i].tid);
		while (prof.hash[s])
			s = (s + 1) & (TID_HASH - 1);
		prof.hash[s] = (uint16_t)(i + 1);
	}
}

/* Start the profile probes' clocks of thread tid. */
static void thread_arm(int32_t tid)
{
	if (prof.nthreads >= MAX_THREADS)
		return;
	struct thr *t = &prof.threads[prof.nthreads++];

	t->tid = tid;
	t->seen = true;
	for (uint32_t i = 0; i < prof.nprof; i++) {
		bool perf = prof.perf[i];

		t->fd[i] = t->timer[i] = -1;
		if (perf && !prof.perf_refused) {
			int fd = perf_start(tid, prof.prof[i].interval_ns, i);
			if (fd >= 0) {
				t->fd[i] = fd;
				prof.mode |= UDT_PROF_MODE_PERF;
				continue;
			}
			/* not allowed, or not there: never again; out of descriptors: this one */
			if (fd != -EMFILE && fd != -ENFILE && fd != -ESRCH)
				prof.perf_refused = true;
		}
		if (perf)
			prof.mode |= UDT_PROF_MODE_REFUSED;
		int32_t timer = timer_start(thread_cpu_clock(tid), SIGEV_THREAD_ID, tid,
					    &prof.prof[i], prof.prof[i].interval_ns);
		if (timer >= 0) {
			t->timer[i] = timer;
			prof.mode |= UDT_PROF_MODE_TIMER;
		}
	}
}

static void thread_disarm(struct thr *t, bool child)
{
	for (uint32_t i = 0; i < prof.nprof; i++) {
		if (t->fd[i] >= 0)
			perf_stop(t->fd[i], child);
		/* a fork child has none of our timers: the ids may be its own */
		if (t->timer[i] >= 0 && !child)
			sys(SYS_timer_delete, t->timer[i], 0, 0, 0, 0);
		t->fd[i] = t->timer[i] = -1;
	}
}

/*
 * The census: arm the threads /proc/self/task lists that we have not, and
 * disarm the ones it no longer lists. Without /proc, only this thread.
 */
static void census(void)
{
	uint32_t nseen = 0;
	int fd = (int)sys(SYS_openat, AT_FDCWD, (long)"/proc/self/task",
			  O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, 0);

	if (fd < 0) {
		/* no /proc (or no descriptor left): this thread at least, and no thread forgotten */
		int32_t self = gettid_raw();
		if (!thread_find(self)) {
			thread_arm(self);
			hash_rebuild();
		}
		return;
	} else {
		for (;;) {
			long n = sys(SYS_getdents64, fd, (long)dents, sizeof(dents), 0, 0);
			if (n <= 0)
				break;
			for (long off = 0; off < n;) {
				/* struct linux_dirent64: ino, off, reclen, type, name */
				unsigned short reclen;
				memcpy(&reclen, dents + off + 16, sizeof(reclen));
				const char *name = dents + off + 19;
				int32_t tid = 0;
				bool num = *name != '\0';
				for (const char *p = name; *p && num; p++) {
					num = *p >= '0' && *p <= '9';
					tid = tid * 10 + (*p - '0');
				}
				if (num && nseen < MAX_THREADS)
					seen_tids[nseen++] = tid;
				off += reclen ? reclen : n;
			}
		}
		close(fd);
	}
	for (uint32_t i = 0; i < prof.nthreads; i++)
		prof.threads[i].seen = false;
	for (uint32_t k = 0; k < nseen; k++) {
		struct thr *t = thread_find(seen_tids[k]);
		if (t)
			t->seen = true;
		else
			thread_arm(seen_tids[k]);
	}
	for (uint32_t i = 0; i < prof.nthreads;) {
		if (prof.threads[i].seen) {
			i++;
			continue;
		}
		thread_disarm(&prof.threads[i], false);
		prof.threads[i] = prof.threads[--prof.nthreads];
	}
	hash_rebuild();
}

/* -- The handler ----------------------------------------------------------------------------- */

enum { NOT_OURS = -1, CENSUS = -2, STALE = -3 };

/*
 * Which of our timers sent si: a probe's index, CENSUS, STALE (a perf event
 * of ours since stopped), or NOT_OURS; *count its fires.
 */
static int classify(const siginfo_t *si, uint32_t *count)
{
	*count = 1;
	if (si->si_code == SI_TIMER) {
		uintptr_t v = (uintptr_t)si->si_value.sival_ptr, base = (uintptr_t)&prof.prof[0];

		if (v == (uintptr_t)&prof.census_timer)
			return CENSUS;
		if (v < base || v >= base + sizeof(prof.prof) || (v - base) % sizeof(prof.prof[0]))
			return NOT_OURS;
		uint32_t over = si->si_overrun > 0 ? (uint32_t)si->si_overrun : 0;
		*count = over < MAX_BURST ? over + 1 : MAX_BURST;
		return (int)((v - base) / sizeof(prof.prof[0]));
	}
	if (si->si_code >= POLL_IN && si->si_code <= POLL_HUP && si->si_fd >= 0 &&
	    si->si_fd < FD_MAP) {
		uint8_t p = __atomic_load_n(&fd_probe[si->si_fd], __ATOMIC_RELAXED);
		if (p == FD_STALE)
			return STALE;
		if (p)
			return p - 1;
	}
	return NOT_OURS;
}

static void on_signal(int sig, siginfo_t *si, void *ucv)
{
	int saved_errno = errno;
	uint32_t count;
	int which = classify(si, &count);

	if (which == NOT_OURS) {
		udt__sig_chain(&prof.old, false, sig, si, ucv);
		errno = saved_errno;
		return;
	}
	if (which == STALE) {
		errno = saved_errno;
		return;
	}
	if (which == CENSUS) {
		if (try_lock(gettid_raw())) {
			if (LOAD_ACQUIRE(&prof.armed))
				census();
			unlock();
		}
		errno = saved_errno;
		return;
	}
	uint64_t owner = LOAD_RELAXED(&prof.owner[which]);
	uint32_t slot = (uint32_t)(owner >> 16) & 0xffff, session = (uint32_t)(owner >> 32);
	struct udt_control *c = slot < UDT_SLOT_MAX ? &udt__ctl.slots[slot] : NULL;

	if (!session || !c || !udt__active(c) || LOAD_RELAXED(&c->session) != session) {
		/* its session is over (the consumer left, or the deadman ended it) */
		udt__profile_sync(false);
	} else {
		const ucontext_t *uc = ucv;
		uint64_t pc = 0;
#if defined(__x86_64__)
		pc = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
		pc = (uint64_t)uc->uc_mcontext.pc;
#endif
		udt__prof_uc = uc;
		for (uint32_t i = 0; i < count; i++)
			udt__fire_in(slot, UDT_PROF_KEY(owner & 0xffff), 2, 0, pc);
		udt__prof_uc = NULL;
		/* counted for dtrace, which says when a session sampled nothing: in the session's
		   memory, under the depth a fire holds (the memory is unmapped only while no
		   thread holds it: session.c, udt__sessions_release()) */
		struct udt_tls *t = &udt__tls;
		if (!t->depth) {
			t->depth = 1;
			COMPILER_BARRIER();
			struct udt_shm_hdr *h = LOAD_ACQUIRE(&udt__slot_rt[slot].shm);
			if (udt__active(c) && LOAD_RELAXED(&c->session) == session && h &&
			    LOAD_RELAXED(&h->session) == session)
				__atomic_fetch_add(&h->prof_samples, count, __ATOMIC_RELAXED);
			t->depth = 0;
		}
	}
	errno = saved_errno;
}

/* -- Arming ---------------------------------------------------------------------------------- */

static void disarm(void)
{
	bool child = prof.pid != udt__safe_getpid();

	STORE_RELEASE(&prof.armed, false);
	if (prof.census_timer >= 0 && !child)
		sys(SYS_timer_delete, prof.census_timer, 0, 0, 0, 0);
	prof.census_timer = -1;
	for (uint32_t i = 0; i < prof.nthreads; i++)
		thread_disarm(&prof.threads[i], child);
	prof.nthreads = 0;
	hash_rebuild();
	if (prof.handler) {
		struct sigaction cur, ign;
		memset(&ign, 0, sizeof(ign));
		ign.sa_handler = SIG_IGN;
		/* ours still there (the application may have replaced it): ignoring the signal
		   discards our signals still pending in any thread, then the application's again */
		if (!sigaction(PROF_SIG, NULL, &cur) && (cur.sa_flags & SA_SIGINFO) &&
		    cur.sa_sigaction == on_signal) {
			sigaction(PROF_SIG, &ign, NULL);
			sigaction(PROF_SIG, &prof.old, NULL);
		}
		prof.handler = false;
	}
	for (uint32_t i = 0; i < prof.nprof; i++)
		STORE_RELAXED(&prof.owner[i], 0);
	prof.nprof = 0;
	prof.mode = 0;
	for (uint32_t s = 0; s < UDT_SLOT_MAX; s++) {
		struct udt_control *c = &udt__ctl.slots[s];
		if (prof.seen[s] && LOAD_RELAXED(&c->prof_armed) == prof.seen[s]) {
			STORE_RELAXED(&c->prof_mode, 0);
			STORE_RELAXED(&c->prof_armed, 0);
		}
		prof.seen[s] = 0;
	}
}

/*
 * Add slot c's session's profile table to the probes to arm. Its count, 0
 * for none; -EINVAL when it is not usable, -ENOSPC when the sessions armed
 * before it leave no room.
 */
static int add_table(struct udt_control *c, uint32_t session)
{
	uint32_t slot = udt__slot_of(c);
	const uint8_t *a = udt__area(c, LOAD_RELAXED(&c->area));
	const struct udt_area_hdr *ah = (const void *)a;

	if (ah->size != sizeof(*ah) || ah->prof_cnt > UDT_PROF_MAX || ah->prof_off % 8 ||
	    (uint64_t)ah->prof_off + (uint64_t)ah->prof_cnt * sizeof(struct udt_prof) > UDT_AREA_SZ)
		return -EINVAL;
	const struct udt_prof *p = (const void *)(a + ah->prof_off);
	uint32_t flags = ah->prof_flags;
	for (uint32_t i = 0; i < ah->prof_cnt; i++)
		if (p[i].interval_ns < UDT_PROF_MIN_NS || p[i].kind != UDT_PROF_PROFILE)
			return -EINVAL;
	if (prof.nprof + ah->prof_cnt > UDT_PROF_MAX)
		return -ENOSPC;
	for (uint32_t i = 0; i < ah->prof_cnt; i++) {
		uint32_t g = prof.nprof++;
		prof.prof[g] = p[i];
		/* perf events where the tick is too coarse for the interval (or asked for) */
		prof.perf[g] = !(flags & UDT_PROF_F_TIMER) &&
			       ((flags & UDT_PROF_F_PERF) || p[i].interval_ns < UDT_PROF_PERF_NS);
		STORE_RELAXED(&prof.owner[g], (uint64_t)session << 32 | slot << 16 | i);
	}
	return (int)ah->prof_cnt;
}

/*
 * Arm the timers of the probes of the sessions in want[] (a session per
 * slot, 0 none): the handler, each thread's clocks, the census. Each slot's
 * prof_armed and prof_errno say how its session fared.
 */
static void arm(const uint32_t want[UDT_SLOT_MAX])
{
	struct sigaction sa, old;
	struct rlimit rl;
	int err = 0, errs[UDT_SLOT_MAX] = { 0 };

	for (uint32_t s = 0; s < UDT_SLOT_MAX; s++) {
		prof.seen[s] = want[s];
		if (want[s] && (errs[s] = add_table(&udt__ctl.slots[s], want[s])) > 0)
			errs[s] = 0;
	}
	if (!prof.nprof)
		goto out;
	prof.perf_refused = false;
	prof.pid = udt__safe_getpid();
	prof.mode = 0;
	prof.census_timer = -1;
	prof.nofile = getrlimit(RLIMIT_NOFILE, &rl) ? 1024 : rl.rlim_cur;
	/* the handler first: a timer may expire at once */
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sigemptyset(&sa.sa_mask);
	if (sigaction(PROF_SIG, NULL, &old)) {
		err = -errno;
		goto out;
	}
	if (!(old.sa_flags & SA_SIGINFO) || old.sa_sigaction != on_signal)
		prof.old = old;
	sa.sa_flags = SA_SIGINFO | SA_RESTART | (prof.old.sa_flags & SA_ONSTACK);
	if (sigaction(PROF_SIG, &sa, NULL)) {
		err = -errno;
		goto out;
	}
	prof.handler = true;
	STORE_RELEASE(&prof.armed, true);
	census();
	if (!prof.nthreads || !(prof.mode & (UDT_PROF_MODE_PERF | UDT_PROF_MODE_TIMER))) {
		err = -EAGAIN;
		goto out;
	}
	prof.census_timer = timer_start(CLOCK_PROCESS_CPUTIME_ID, SIGEV_SIGNAL, 0,
					&prof.census_timer, CENSUS_NS);
	if (prof.census_timer < 0)
		err = prof.census_timer;
out:
	for (uint32_t s = 0; s < UDT_SLOT_MAX; s++) {
		struct udt_control *c = &udt__ctl.slots[s];
		int e = errs[s] ? errs[s] : err;

		if (!want[s])
			continue;
		STORE_RELAXED(&c->prof_errno, -e);
		if (!e)
			STORE_RELAXED(&c->prof_mode, prof.mode);
		STORE_RELAXED(&c->prof_armed, e ? 0 : want[s]);
	}
	if (err) {
		/* (what was taken goes, but the sessions stay seen: not armed again and again) */
		uint32_t seen[UDT_SLOT_MAX];
		memcpy(seen, prof.seen, sizeof(seen));
		disarm();
		memcpy(prof.seen, seen, sizeof(seen));
	}
}

UDT_EXPORT void udt__profile_sync(bool wait)
{
	int saved_errno = errno;
	int32_t tid = gettid_raw();
	uint32_t want[UDT_SLOT_MAX];
	bool same = true, any = false;
	int pid = udt__safe_getpid();

	/* the SystemTap sites are the runtime's to sync too, wherever it syncs (sites.c) */
	udt__sites_sync(wait);
	/* and, called from outside a fire (the consumer's injected call at its detach), the
	   memory of the sessions that are over, and the fault handler once none is left */
	if (wait)
		(void)udt__sessions_release(NULL);

	if (!(wait ? lock_wait(tid) : try_lock(tid))) {
		errno = saved_errno;
		return;
	}
	/* the sessions with profile probes (a fork child is not the process they are for) */
	for (uint32_t s = 0; s < UDT_SLOT_MAX; s++) {
		struct udt_control *c = &udt__ctl.slots[s];
		uint32_t session = LOAD_RELAXED(&c->session);
		const struct udt_area_hdr *ah = (const void *)udt__area(c, LOAD_RELAXED(&c->area));

		want[s] = udt__active(c) && session && LOAD_RELAXED(&c->pid) == pid &&
				  ah->prof_cnt ? session : 0;
		same &= want[s] == prof.seen[s];
		any |= want[s] || prof.seen[s];
	}
	/* a change re-arms them all: a signal of a timer of before is never taken for another's */
	if (any && (!same || (prof.nprof && prof.pid != pid))) {
		disarm();
		arm(want);
	}
	for (uint32_t s = 0; s < UDT_SLOT_MAX; s++)
		__atomic_fetch_add(&udt__ctl.slots[s].prof_seq, 1, __ATOMIC_RELEASE);
	unlock();
	errno = saved_errno;
}
