/* SPDX-License-Identifier: MIT */
/*
 * SystemTap probe sites in the process (docs/notes.md): a site of a program
 * built with SystemTap's <sys/sdt.h> is a one-byte nop that a note
 * describes, with no call into any runtime. A session enables it by
 * replacing the nop with an int3 that this file's SIGTRAP handler takes.
 *
 * Mechanism. The consumer lists the session's sites in its area (struct
 * udt_sites: address, the key of its probe's ECBs, its arguments as the
 * note's operands say) and increments their semaphores like any other.
 * udt__sites_sync() then makes the text agree with what the live sessions
 * want (several sessions may trace the process, each with its table:
 * docs/runtime.md, "Several sessions"): it installs the handler, patches
 * the sites any of them has and restores those none has any more. It runs from udt__profile_sync(), so wherever the
 * consumer has the runtime sync (the -c handshake, the injected call of -p,
 * at the start and at the end of a session: proc/inject.c), and at the
 * end of a session the runtime ends itself (the deadman, a fork child, a bad
 * session: session.c). The bytes are written through /proc/self/mem, which
 * writes a read-only private mapping by copy-on-write as ptrace would, or,
 * where that is refused, by making the page writable for the moment.
 *
 * A trap: the kernel reports an int3 with si_code SI_KERNEL and the PC after
 * it. If that int3 is one we wrote and still there, the handler finds the
 * site in the session's table (a binary search), reads the arguments from
 * the interrupted registers and memory (fault-safe: udt__safe_copy), fires
 * the probe through udt__fire_at() with the signal's context for ustack()
 * (udt__prof_uc), and returns: the thread resumes after the nop, which the
 * int3 replaced whole. An int3 we wrote and have restored since (a trap
 * taken just before the restore) is run again from the restored byte. Any
 * other SIGTRAP (a debugger's breakpoint in a process it does not ptrace,
 * raise(SIGTRAP), the application's own int3) goes where it would have gone
 * without us: the handler we replaced, or the default action.
 *
 * A site the consumer found sound for it (mode UDT_SITE_JUMP) gets a jump to
 * a trampoline instead, which costs a fraction of a trap: runtime/tramp.c.
 * The handler serves those too: a thread that meets the int3s their
 * patching puts in place for a moment, or that resumes inside the bytes a
 * jump displaced, is sent to the trampoline's copy of the instruction it was
 * to run.
 *
 * Safety while other threads run: a site is one byte, and so is int3: a
 * thread executing it sees the nop or the trap, never a mix. What is
 * patched is remembered for the life of the process (struct patch in
 * sites.h: the address, the bytes, the trampoline), since a trap can be
 * delivered after its site was restored; entries are only added, and
 * published to the handler with a release store. The handler stays
 * installed once installed, transparent to every other SIGTRAP.
 *
 * What can go wrong: a thread that blocks SIGTRAP and meets an int3 is
 * killed by the kernel (it resets the handler of a blocked synchronous
 * signal): a sync that finds such a thread (/proc/self/task/N/status) patches
 * nothing and says which (site_errno EDEADLK, site_tid). A debugger that
 * ptraces the process sees our traps first (gdb stops with "SIGTRAP"; its
 * default is not to pass it on, and the thread then runs on after the nop,
 * untraced). An application that installs its own SIGTRAP handler after ours
 * gets our traps. The text pages of patched sites stay copies (anonymous
 * memory) after the bytes are restored.
 */
#include "runtime/area.h"
#include "runtime/sites.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#define PATCH_HASH 8192           /* slots of the address -> patch hash: twice UDT_PATCH_MAX */

static struct {
	int32_t lock;             /* 0 free, else the tid that holds it */
	bool handler;             /* ours is installed */
	struct sigaction old;     /* the action we replaced, for the traps that are not ours */
	uint32_t npatch;
	struct patch patch[UDT_PATCH_MAX];
	uint16_t hash[PATCH_HASH]; /* index + 1 of the patch of this address, 0 empty (release) */
	char status[4096];        /* a thread's /proc status, read by the sync */
	char dents[16384];
} st;

/* Each slot's sites the handler last verified: session << 32 | 1 (acquire); their operands. */
static uint64_t verified[UDT_SLOT_MAX];
static const struct udt_note_arg *verified_args[UDT_SLOT_MAX];

/* The general registers of the trampolined site whose fire runs in this thread (ustack.c). */
__thread const uint64_t *udt__site_gpr __attribute__((tls_model("initial-exec")));

static int32_t gettid_raw(void)
{
	return (int32_t)udt__sys(SYS_gettid, 0, 0, 0, 0, 0, 0);
}

/* -- The lock (as profile.c's: a handler never waits, the injected call waits a while) ------- */

static bool try_lock(int32_t tid)
{
	int32_t free_ = 0;

	return __atomic_compare_exchange_n(&st.lock, &free_, tid, false, __ATOMIC_ACQUIRE,
					   __ATOMIC_RELAXED);
}

static bool lock_wait(int32_t tid)
{
	uint64_t t0 = udt__now_ns();

	while (!try_lock(tid)) {
		if (LOAD_RELAXED(&st.lock) == tid || udt__now_ns() - t0 > 1000000000ull)
			return false;
		udt__sys(SYS_sched_yield, 0, 0, 0, 0, 0, 0);
	}
	return true;
}

/* -- What we patched ------------------------------------------------------------------------- */

static uint32_t addr_slot(uint64_t addr)
{
	return (uint32_t)((addr * 0x9e3779b97f4a7c15ull) >> 51) & (PATCH_HASH - 1);
}

struct patch *udt__patch_find(uint64_t addr)
{
	for (uint32_t s = addr_slot(addr), n = 0; n < PATCH_HASH; n++, s = (s + 1) & (PATCH_HASH - 1)) {
		uint16_t h = LOAD_ACQUIRE(&st.hash[s]);
		if (!h)
			return NULL;
		if (st.patch[h - 1].addr == addr)
			return &st.patch[h - 1];
	}
	return NULL;
}

struct patch *udt__patch_at(uint32_t i)
{
	return i < LOAD_ACQUIRE(&st.npatch) ? &st.patch[i] : NULL;
}

uint32_t udt__patch_index(const struct patch *p)
{
	return (uint32_t)(p - st.patch);
}

/* Under the lock: the entry of addr (a site of kind), made if need be (NULL when full). */
static struct patch *patch_get(uint64_t addr, uint8_t orig, uint8_t kind)
{
	struct patch *p = udt__patch_find(addr);
	uint32_t s;

	if (p)
		return p->kind == kind ? p : NULL;
	if (st.npatch == UDT_PATCH_MAX)
		return NULL;
	p = &st.patch[st.npatch];
	p->addr = addr;
	p->kind = kind;
	p->bytes[0] = orig;
	p->bound = 1;
	p->state = P_RESTORED;
	for (s = addr_slot(addr); st.hash[s]; s = (s + 1) & (PATCH_HASH - 1))
		;
	/* pairs with the handler's acquire load of the slot, and udt__patch_at()'s of npatch */
	STORE_RELEASE(&st.npatch, st.npatch + 1);
	STORE_RELEASE(&st.hash[s], (uint16_t)st.npatch);
	return p;
}

/* -- Writing the text ------------------------------------------------------------------------ */

int udt__text_write(int fd, uint64_t addr, const void *b, size_t n)
{
	uint64_t page = addr & ~4095ull, end = (addr + n + 4095) & ~4095ull;

	if (fd >= 0 && udt__sys(SYS_pwrite64, fd, (long)(uintptr_t)b, (long)n, (long)addr, 0, 0) ==
			       (long)n)
		return 0;
	long err = udt__sys(SYS_mprotect, (long)page, (long)(end - page),
			    PROT_READ | PROT_WRITE | PROT_EXEC, 0, 0, 0);
	if (err)
		return (int)err;
	for (size_t i = 0; i < n; i++)
		__atomic_store_n((uint8_t *)(uintptr_t)addr + i, ((const uint8_t *)b)[i],
				 __ATOMIC_RELAXED);
	(void)udt__sys(SYS_mprotect, (long)page, (long)(end - page), PROT_READ | PROT_EXEC, 0, 0, 0);
	return 0;
}

/* The bytes patch q holds: [*lo, *hi). */
static void held(const struct patch *q, uint64_t *lo, uint64_t *hi)
{
	bool jump = LOAD_RELAXED(&q->state) == P_JUMP;

	*lo = jump ? q->addr - q->fire_off : q->addr;
	*hi = jump ? *lo + q->len : q->addr + 1;
}

/*
 * Does [a, a + len) meet the bytes another patch than self holds (not
 * restored)? (A site of one session inside the jump of another's: an offset
 * probe in an entry probe's five bytes.) A patch's identity is at most
 * UDT_SITE_BYTES_MAX from the bytes it holds.
 */
static bool overlaps(uint64_t a, uint32_t len, const struct patch *self)
{
	for (uint64_t x = a - UDT_SITE_BYTES_MAX; x < a + len + UDT_SITE_BYTES_MAX; x++) {
		const struct patch *q = udt__patch_find(x);
		uint64_t lo, hi;
		if (!q || q == self || LOAD_RELAXED(&q->state) == P_RESTORED)
			continue;
		held(q, &lo, &hi);
		if (lo < a + len && a < hi)
			return true;
	}
	return false;
}

static bool served(uint64_t addr);

/*
 * Our int3 over site s's nop, or over its instruction (which then runs from
 * a trampoline of its own after the fire), or find it there, or a jump of
 * ours: its udt_site_status.
 */
static uint8_t patch_site(int fd, const struct udt_site *s)
{
	uint8_t cur, int3 = UDT_INT3;
	uint8_t want = s->kind == UDT_SITE_INSN ? s->bytes[s->fire_off] : UDT_SITE_NOP;
	uint64_t addr = s->addr;
	struct patch *p;

	if (udt__safe_copy(&cur, addr, 1))
		return UDT_SITE_FAILED;
	p = udt__patch_find(addr);
	if (p && p->kind != s->kind)
		return UDT_SITE_OVERLAP; /* (a note's nop and an instruction site at one address) */
	/* (jumped, by a session since its plan changed: it stays jumped) */
	if (p && LOAD_RELAXED(&p->state) == P_JUMP)
		return UDT_SITE_JUMPED; /* (an earlier session's: it stays) */
	if (p && LOAD_RELAXED(&p->state) == P_TRAP && cur == UDT_INT3)
		return UDT_SITE_PATCHED; /* (an earlier session's, a consumer that died) */
	if (s->kind == UDT_SITE_INSN && served(addr))
		return UDT_SITE_JUMPED; /* (a jump takes it: it fires from the jump's trampoline) */
	if (cur != want)
		return cur == UDT_INT3 ? UDT_SITE_BUSY : UDT_SITE_NOT_NOP;
	if (overlaps(addr, s->kind == UDT_SITE_INSN ? s->len : 1, p))
		return served(addr) ? UDT_SITE_JUMPED : UDT_SITE_OVERLAP;
	p = patch_get(addr, cur, s->kind);
	if (!p)
		return UDT_SITE_FAILED;
	/* an instruction runs from a copy after the fire */
	if (s->kind == UDT_SITE_INSN &&
	    (s->mode != UDT_SITE_TRAP || udt__tramp_ool(fd, p, s)))
		return UDT_SITE_FAILED;
	/* the state first: a trap at the int3 must find it ours */
	STORE_RELEASE(&p->state, P_TRAP);
	if (udt__text_write(fd, addr, &int3, 1)) {
		STORE_RELAXED(&p->state, P_RESTORED);
		return UDT_SITE_FAILED;
	}
	return UDT_SITE_PATCHED;
}

/*
 * Site s trapped: a NOTE site's nop, or an instruction site's instruction
 * (a jump's plan made a trap's: its first instruction alone, when the jump
 * starts at the probed one).
 */
static uint8_t trap_site(int fd, const struct udt_site *s)
{
	struct udt_site t;

	if (s->kind == UDT_SITE_INSN && (s->flags & UDT_SITE_F_NO_TRAP))
		return UDT_SITE_FAILED; /* (a jump or nothing) */
	if (s->kind != UDT_SITE_INSN || s->mode == UDT_SITE_TRAP)
		return patch_site(fd, s);
	/* the probed instruction of the jump's plan, alone */
	uint32_t i = 0;
	while (i < s->insn_cnt && s->insn[i].off != s->fire_off)
		i++;
	if (i == s->insn_cnt)
		return UDT_SITE_FAILED;
	t = *s;
	t.mode = UDT_SITE_TRAP;
	t.insn_cnt = 1;
	t.insn[0] = s->insn[i];
	t.insn[0].off = 0;
	t.fire_off = 0;
	t.join_mask = 0;
	t.len = s->insn[i].len;
	memcpy(t.bytes, s->bytes + s->fire_off, t.len);
	return patch_site(fd, &t);
}

static void restore_site(int fd, struct patch *p);

/* Does a jump of ours (patched) fire the probes at addr from its trampoline? */
static bool served(uint64_t addr)
{
	for (uint64_t x = addr - (UDT_SITE_BYTES_MAX - 1); x <= addr; x++) {
		const struct patch *q = udt__patch_find(x);
		if (!q || LOAD_RELAXED(&q->state) != P_JUMP)
			continue;
		uint64_t k = addr - (q->addr - q->fire_off);
		if (k < 32 && (q->points >> k & 1))
			return true;
	}
	return false;
}

/*
 * A site whose probed instruction is in another's jump (join_back): nothing
 * of its own while that jump fires it from its trampoline, else its trap.
 */
static uint8_t joined_site(int fd, const struct udt_site *s)
{
	struct patch *p = udt__patch_find(s->addr);

	if (served(s->addr)) {
		/* (its own trap, from a sync before the jump: the jump's now) */
		if (p && LOAD_RELAXED(&p->state) == P_TRAP)
			restore_site(fd, p);
		return UDT_SITE_JUMPED;
	}
	return trap_site(fd, s);
}

/*
 * The jumps a sync writes, made and taken back, a batch (udt__tjobs_run():
 * a serialization of every core a phase, for the batch); for each jump
 * made, the site of the area it is for (its status said again if the jump
 * fails) and its slot.
 */
static struct udt_tjob jobs[UDT_PATCH_MAX];
static struct {
	const struct udt_site *site;
	uint32_t slot;
} job_for[UDT_PATCH_MAX];
static size_t njobs;
/* (the sites each slot has patched, udt__sites_sync()'s count) */
static uint32_t *job_patched;

/* Write the jobs queued: a jump that failed is trapped instead, its status said again. */
static void flush_jobs(int fd)
{
	udt__tjobs_run(fd, jobs, njobs);
	for (size_t i = 0; i < njobs; i++) {
		const struct udt_site *site = job_for[i].site;
		if (!jobs[i].err || !site)
			continue;
		uint8_t status = trap_site(fd, site);
		STORE_RELAXED((uint8_t *)&site->status, status);
		if (status != UDT_SITE_PATCHED && job_patched)
			job_patched[job_for[i].slot]--;
	}
	njobs = 0;
}

/* The jump of p for plan s begun and queued (for site, of slot): 0, or -errno (nothing done). */
static int queue_patch(int fd, struct patch *p, const struct udt_site *s,
		       const struct udt_site *site, uint32_t slot)
{
	if (njobs == UDT_PATCH_MAX)
		flush_jobs(fd);
	int err = udt__tramp_patch_begin(fd, p, s, &jobs[njobs]);
	if (!err) {
		job_for[njobs].site = site;
		job_for[njobs].slot = slot;
		njobs++;
	}
	return err;
}

/* Jumped p's bytes put back, in the batch. */
static void queue_restore(int fd, struct patch *p)
{
	if (njobs == UDT_PATCH_MAX)
		flush_jobs(fd);
	if (udt__tramp_restore_begin(fd, p, &jobs[njobs])) {
		job_for[njobs].site = NULL;
		njobs++;
	}
}

/*
 * The site at addr (s, in mode UDT_SITE_JUMP) jumped, or trapped when it
 * cannot be. An instruction site's jump fires from its trampoline the other
 * sites in its bytes that any live session has (joins, a bit each of its
 * bytes in joins): a jump of ours there with fewer is moved to a new
 * trampoline that fires them all.
 */
static uint8_t jump_site(int fd, const struct udt_site *s0, uint32_t joins, uint32_t slot)
{
	struct udt_site s1 = *s0;
	const struct udt_site *s = &s1;
	struct patch *p = udt__patch_find(s->addr);
	uint8_t cur, orig = s->kind == UDT_SITE_INSN ? s->bytes[s->fire_off] : UDT_SITE_NOP;

	if (s->kind == UDT_SITE_INSN)
		s1.join_mask |= joins;
	if (p && p->kind != s->kind)
		return UDT_SITE_OVERLAP;
	if (p && LOAD_RELAXED(&p->state) == P_JUMP) {
		/* (an earlier session's: it stays; with the points this one wants too) */
		if (s->kind == UDT_SITE_INSN && (s1.join_mask | 1u << s->fire_off) & ~p->points)
			(void)queue_patch(fd, p, s, NULL, 0);
		return UDT_SITE_JUMPED;
	}
	if (s->kind == UDT_SITE_INSN && served(s->addr))
		return UDT_SITE_JUMPED; /* (another's jump takes it: it fires from there) */
	if (udt__safe_copy(&cur, s->addr, 1))
		return UDT_SITE_FAILED;
	uint64_t start = s->kind == UDT_SITE_INSN ? s->addr - s->fire_off : s->addr;
	/* the joined sites' own traps (from a sync the jump failed at) go first: the jump's
	   trampoline fires them */
	for (uint32_t k = 0; s->kind == UDT_SITE_INSN && k < 32; k++) {
		struct patch *q = s->join_mask >> k & 1 ? udt__patch_find(start + k) : NULL;
		if (q && LOAD_RELAXED(&q->state) == P_TRAP)
			restore_site(fd, q);
	}
	if (overlaps(start, s->len, p))
		return served(s->addr) ? UDT_SITE_JUMPED : UDT_SITE_OVERLAP;
	/* from the nop or the instruction, or from our own int3 (an earlier session's trap) */
	if (cur == orig)
		p = patch_get(s->addr, cur, s->kind);
	else if (!p || LOAD_RELAXED(&p->state) != P_TRAP || cur != UDT_INT3)
		return trap_site(fd, s); /* (says what is there) */
	if (!p)
		return UDT_SITE_FAILED;
	/* (jumped once the batch is written: flush_jobs() traps it if that fails) */
	if (!queue_patch(fd, p, s, s0, slot))
		return UDT_SITE_JUMPED;
	return trap_site(fd, s);
}

static void restore_site(int fd, struct patch *p)
{
	uint8_t cur;

	if (LOAD_RELAXED(&p->state) == P_JUMP) {
		udt__tramp_restore(fd, p);
		return;
	}
	/* an object unloaded meanwhile, or a byte that is no longer ours: nothing to write
	   (a trap's byte is the one at the probed instruction: fire_off of the bytes) */
	if (!udt__safe_copy(&cur, p->addr, 1) && cur == UDT_INT3)
		(void)udt__text_write(fd, p->addr, &p->bytes[p->fire_off], 1);
	STORE_RELEASE(&p->state, P_RESTORED);
}

/* -- The session's sites --------------------------------------------------------------------- */

static bool in_area(uint64_t off, uint64_t len)
{
	return off <= UDT_AREA_SZ && len <= UDT_AREA_SZ - off;
}

static bool arg_ok(const struct udt_note_arg *a)
{
	int s = a->size < 0 ? -a->size : a->size;

	if (s != 1 && s != 2 && s != 4 && s != 8)
		return false;
	switch (a->kind) {
	case UDT_NARG_REG:
		return a->reg < UDT_NREG_CNT && a->shift <= 8;
	case UDT_NARG_XMM:
		return a->reg < 16;
	case UDT_NARG_MEM:
		return (a->reg < UDT_NREG_CNT || a->reg == UDT_NREG_NONE) &&
		       (a->index < UDT_NREG_CNT || a->index == UDT_NREG_NONE) &&
		       (a->scale == 1 || a->scale == 2 || a->scale == 4 || a->scale == 8);
	case UDT_NARG_CONST:
		return true;
	default:
		return false;
	}
}

/*
 * The sites of slot's session in area a, checked (once per table: a
 * published table never changes, and a new one is appended whole):
 * extent, order, arguments. Their count,
 * with *ret the array; 0 when there are none, -1 when they are bad (the
 * session is then ended as a bad ECB ends it).
 */
static int sites_of(uint32_t slot, const uint8_t *a, uint32_t session,
		    const struct udt_site **ret)
{
	const struct udt_area_hdr *ah = (const void *)a;
	const struct udt_sites *ss;
	const struct udt_site *s;

	*ret = NULL;
	if (LOAD_ACQUIRE(&ah->size) != sizeof(*ah))
		return 0;
	/* the newest table: a library loaded later has its own sites in a new one (late.c) */
	uint32_t off = udt__area_sites_off(a);
	if (LOAD_ACQUIRE(&verified[slot]) == ((uint64_t)session << 32 | off)) {
		ss = (const void *)(a + off);
		*ret = (const void *)(a + ss->site_off);
		return (int)ss->cnt;
	}
	if (!off)
		return 0; /* (a session without sites: nothing verified, nothing to cache) */
	if (off % 8 || !in_area(off, sizeof(*ss)))
		return -1;
	ss = (const void *)(a + off);
	if (ss->size != sizeof(*ss) || ss->cnt > UDT_SITES_MAX || ss->site_off % 8 ||
	    !in_area(ss->site_off, (uint64_t)ss->cnt * sizeof(*s)) || ss->arg_off % 8 ||
	    !in_area(ss->arg_off, (uint64_t)ss->arg_cnt * sizeof(struct udt_note_arg)))
		return -1;
	s = (const void *)(a + ss->site_off);
	const struct udt_note_arg *args = (const void *)(a + ss->arg_off);
	for (uint32_t i = 0; i < ss->cnt; i++) {
		if (!s[i].addr || (i && s[i].addr <= s[i - 1].addr) ||
		    (s[i].kind != UDT_SITE_NOTE && s[i].kind != UDT_SITE_INSN))
			return -1;
		if (s[i].kind == UDT_SITE_INSN) {
			/* (its plan is checked where it is carried out: tramp.c) */
			if (!s[i].key && !s[i].key_off && !s[i].key_ret && !s[i].part)
				return -1;
			if (s[i].part && (!UDT_PART_OK(s[i].part) || s[i].part >> 52 & 0xf))
				return -1;
			continue;
		}
		if (s[i].arg_cnt > UDT_NOTE_MAX_ARGS || s[i].arg_idx > ss->arg_cnt ||
		    s[i].arg_cnt > ss->arg_cnt - s[i].arg_idx)
			return -1;
		for (uint32_t k = 0; k < s[i].arg_cnt; k++)
			if (!arg_ok(&args[s[i].arg_idx + k]))
				return -1;
	}
	*ret = s;
	STORE_RELAXED(&verified_args[slot], args);
	STORE_RELEASE(&verified[slot], (uint64_t)session << 32 | off);
	return (int)ss->cnt;
}

static const struct udt_site *site_search(const struct udt_site *s, int n, uint64_t addr)
{
	int lo = 0, hi = n;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		if (s[mid].addr == addr)
			return &s[mid];
		if (s[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* -- Arguments ------------------------------------------------------------------------------- */

/*
 * The arguments of note site s (its operands, n of them at a) into args,
 * from the general registers gpr (the x86 encoding's order) and the FXSAVE
 * image fx (NULL: none) of the thread interrupted at the site.
 */
static void note_args(const struct udt_note_arg *ops, uint32_t n, const uint64_t *gpr,
		      const uint8_t *fx, uint64_t *args)
{
	for (uint32_t i = 0; i < n; i++) {
		const struct udt_note_arg *a = &ops[i];
		uint64_t v = 0, addr;

		switch (a->kind) {
		case UDT_NARG_REG:
			v = gpr[a->reg] >> a->shift;
			if (a->width < 8)
				v &= (1ull << (8 * a->width)) - 1;
			break;
		case UDT_NARG_XMM:
			if (fx)
				memcpy(&v, fx + 160 + 16 * a->reg, 8); /* FXSAVE's XMM0... */
			break;
		case UDT_NARG_MEM:
			addr = (uint64_t)a->disp;
			if (a->reg != UDT_NREG_NONE)
				addr += gpr[a->reg];
			if (a->index != UDT_NREG_NONE)
				addr += gpr[a->index] * a->scale;
			/* (little-endian: the low bytes of v; unreadable reads 0) */
			if (udt__safe_copy(&v, addr, (size_t)(a->size < 0 ? -a->size : a->size)))
				v = 0;
			break;
		case UDT_NARG_CONST:
			v = (uint64_t)a->disp;
			break;
		}
		args[i] = udt_note_arg_value(a->size, v);
	}
}

/* The x86-64 ABI's integer arguments of a function at its entry: six registers, then the stack. */
#define PID_ARGS 10
static void entry_args(const uint64_t *gpr, bool at_entry, uint64_t *args)
{
	static const uint8_t reg[6] = { UDT_NREG_RDI, UDT_NREG_RSI, UDT_NREG_RDX,
					UDT_NREG_RCX, UDT_NREG_R8, UDT_NREG_R9 };
	uint64_t sp = gpr[UDT_NREG_RSP];

	for (uint32_t i = 0; i < 6; i++)
		args[i] = gpr[reg[i]];
	/* above the return address: at an entry, in the page the call just wrote it to, plain
	   loads (the common case); else each read fault-safe (unreadable reads 0) */
	if (at_entry && (sp & 4095) + 8 * (PID_ARGS - 5) <= 4096) {
		for (uint32_t i = 6; i < PID_ARGS; i++)
			args[i] = *(const volatile uint64_t *)(uintptr_t)(sp + 8 * (i - 5));
		return;
	}
	for (uint32_t i = 6; i < PID_ARGS; i++)
		if (udt__safe_copy(&args[i], sp + 8 * (i - 5), 8))
			args[i] = 0;
}

/* -- The handler ----------------------------------------------------------------------------- */

/* Hand a SIGTRAP that is not ours to the action we replaced: an int3's is forced. */
static void chain(int sig, siginfo_t *si, void *uc)
{
	udt__sig_chain(&st.old, si->si_code == SI_KERNEL, sig, si, uc);
}

/* The x86 encoding's order of the general registers, from a signal's context. */
static const int greg_of[UDT_NREG_CNT] = {
	REG_RAX, REG_RCX, REG_RDX, REG_RBX, REG_RSP, REG_RBP, REG_RSI, REG_RDI,
	REG_R8,  REG_R9,  REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15,
};

/* The sites of slot's session if it is live and this process's (not a fork child's parent's). */
static int live_sites(uint32_t slot, const struct udt_site **ret)
{
	struct udt_control *c = &udt__ctl.slots[slot];
	uint32_t session = LOAD_RELAXED(&c->session);

	*ret = NULL;
	if (!udt__active(c) || !session)
		return 0;
	/* (a vfork child's are its parent's: the same memory, the same text) */
	int32_t pid = LOAD_RELAXED(&c->pid);
	if (pid != udt__safe_getpid() && udt__shares_mm(pid) <= 0)
		return 0;
	return sites_of(slot, udt__area(c, LOAD_RELAXED(&c->area)), session, ret);
}

/*
 * The site p is in a live session's table: the one the sync last put in p
 * (its slot and session in site_tag, published after site), else the first
 * live session's that has it (a session gone since the sync). Every session
 * lays a site out from the same note, so any of them says how to read its
 * arguments. NULL when no live session has it.
 */
static const struct udt_site *site_of(struct patch *p, uint32_t *ret_slot)
{
	/* pairs with the sync's release of site_tag after site */
	uint64_t tag = LOAD_ACQUIRE(&p->site_tag);
	uint32_t slot = (uint32_t)(tag & 0xff);
	const struct udt_site *s = LOAD_RELAXED(&p->site), *sites;

	if (s && slot < UDT_SLOT_MAX) {
		struct udt_control *c = &udt__ctl.slots[slot];
		if (udt__active(c) && LOAD_RELAXED(&c->session) == (uint32_t)(tag >> 8)) {
			*ret_slot = slot;
			return s;
		}
	}
	s = NULL;
	for (slot = 0; slot < UDT_SLOT_MAX && !s; slot++) {
		int n = live_sites(slot, &sites);
		s = n > 0 ? site_search(sites, n, p->addr) : NULL;
		*ret_slot = slot;
	}
	return s;
}

static int live_sites(uint32_t slot, const struct udt_site **ret);

/*
 * The probes of the instruction site at pc (docs/pid.md), in the order DTrace
 * fires them: s's, one live session's site there, and where several
 * sessions live, the keys any of them has there (each key's fire runs every
 * session's ECBs of it: the keys are the same in all).
 */
static void fire_insn(const struct udt_site *s, const uint64_t *gpr, uint64_t pc)
{
	uint64_t args[PID_ARGS] = { 0 }, key = s->key, key_off = s->key_off, key_ret = s->key_ret;
	uint64_t ret_off = s->ret_off, part = s->part;
	uint64_t lives = LOAD_RELAXED(&udt__ctl.hdr.lives) & 0x0101010101010101ull;

	for (uint32_t slot = 0; lives & (lives - 1) && slot < UDT_SLOT_MAX; slot++) {
		const struct udt_site *sites, *o;
		int n = live_sites(slot, &sites);
		if (n <= 0 || !(o = site_search(sites, n, pc)) || o->kind != UDT_SITE_INSN)
			continue;
		key = key ? key : o->key;
		key_off = key_off ? key_off : o->key_off;
		part = part ? part : o->part;
		if (!key_ret) {
			key_ret = o->key_ret;
			ret_off = o->ret_off;
		}
	}
	if (key || key_off) {
		udt__safe_fire_begin();
		entry_args(gpr, key != 0, args);
		udt__safe_fire_end();
		if (key)
			udt__fire_at(key, PID_ARGS, args, pc);
		if (key_off)
			udt__fire_at(key_off, PID_ARGS, args, pc);
	}
	if (key_ret) {
		/* illumos's: the returning instruction's offset, %rax, %rdx */
		uint64_t r[3] = { ret_off, gpr[UDT_NREG_RAX], gpr[UDT_NREG_RDX] };
		udt__fire_at(key_ret, 3, r, pc);
	}
	if (part)
		udt__part_fire(part, gpr, pc);
}

void udt__part_fire(uint64_t part, const uint64_t *gpr, uint64_t pc)
{
	if (UDT_PART_ROLE(part) >= UDT_PR_FIRST)
		udt__proc_fire(part, gpr, pc);
	else
		udt__lock_fire(part, gpr, pc);
}

void udt__point_fire(struct patch *p, uint64_t addr, const uint64_t *gpr)
{
	/* (the runtime's own calls, in a fire or a sync, to functions it has patched: the
	   pid provider's sites there are the application's, not its) */
	if (udt__tls.quiet || udt__tls.depth)
		return;
	const struct udt_site *sites, *s = NULL;
	/* the session the sync last found p's site in, as site_of() takes it */
	uint64_t tag = LOAD_ACQUIRE(&p->site_tag);
	uint32_t slot = (uint32_t)(tag & 0xff);

	if (LOAD_RELAXED(&p->site) && slot < UDT_SLOT_MAX) {
		struct udt_control *c = &udt__ctl.slots[slot];
		uint32_t session = (uint32_t)(tag >> 8);
		int n = udt__active(c) && LOAD_RELAXED(&c->session) == session
				? sites_of(slot, udt__area(c, LOAD_RELAXED(&c->area)), session, &sites)
				: 0;
		s = n > 0 ? site_search(sites, n, addr) : NULL;
	}
	for (slot = 0; !s && slot < UDT_SLOT_MAX; slot++) {
		int n = live_sites(slot, &sites);
		s = n > 0 ? site_search(sites, n, addr) : NULL;
	}
	/* (one session's site: its fire runs every session's ECBs of its keys) */
	if (s && s->kind == UDT_SITE_INSN) {
		udt__site_gpr = gpr;
		fire_insn(s, gpr, addr);
		udt__site_gpr = NULL;
	}
}

void udt__site_fire(struct patch *p, const uint64_t *gpr, const uint8_t *fx, const void *uc)
{
	if (udt__tls.quiet || udt__tls.depth)
		return; /* (the runtime's own calls: udt__point_fire()) */
	uint32_t slot = 0;
	const struct udt_site *s = site_of(p, &slot);
	uint64_t args[UDT_NOTE_MAX_ARGS];

	if (!s) {
		udt__sites_sync(false); /* no session has it now: it goes */
		return;
	}
	/* ustack() starts at the site: from the signal's context, or from the trampoline's */
	udt__prof_uc = uc;
	udt__site_gpr = uc ? NULL : gpr;
	if (s->kind == UDT_SITE_INSN) {
		fire_insn(s, gpr, s->addr);
	} else {
		udt__safe_fire_begin();
		note_args(LOAD_RELAXED(&verified_args[slot]) + s->arg_idx, s->arg_cnt, gpr, fx, args);
		udt__safe_fire_end();
		/* in every session: each has its ECBs of the probe's key, if it enabled it */
		udt__fire_at(s->key, s->arg_cnt, args, p->addr + 1);
	}
	udt__prof_uc = NULL;
	udt__site_gpr = NULL;
	/* the fire found a session over (the deadman, a fork child): its sites may go */
	if (!site_of(p, &slot))
		udt__sites_sync(false);
}

/*
 * The patch of a site with a trampoline (jumped now, or before) whose jump
 * covers pc, where an instruction it displaced starts (at offset *ret_k of
 * its bytes): a site's jump starts at it, or (an instruction site's) up to
 * UDT_SITE_BYTES_MAX bytes before it.
 */
static struct patch *displaced_at(uint64_t pc, uint32_t *ret_k)
{
	for (uint64_t x = pc - (UDT_SITE_JMP_LEN - 1); x < pc + UDT_SITE_BYTES_MAX; x++) {
		struct patch *p = x == pc ? NULL : udt__patch_find(x);
		if (!p || !LOAD_ACQUIRE(&p->tramp))
			continue;
		uint64_t start = p->addr - p->fire_off;
		if (pc >= start && pc - start < UDT_SITE_JMP_LEN && (p->bound & (1u << (pc - start)))) {
			*ret_k = (uint32_t)(pc - start);
			return p;
		}
	}
	return NULL;
}

static void on_trap(int sig, siginfo_t *si, void *ucv)
{
	struct udt_tls *t = &udt__tls;
	/*
	 * A trap in the handler itself (SA_NODEFER), or in what it calls: the C
	 * library's functions, which may be the pid provider's trapped sites (errno's
	 * location, the first time in a thread), fires nothing and touches nothing of
	 * the C library, as the kernel kills a thread that meets a trap with SIGTRAP
	 * blocked.
	 */
	bool nested = t->traps > 0;
	t->traps++;
	int *errp = nested ? NULL : t->errp ? t->errp : &errno;
	ucontext_t *uc = ucv;
	int saved_errno = errp ? *errp : 0;
	uint64_t pc = (uint64_t)uc->uc_mcontext.gregs[REG_RIP] - 1, gpr[UDT_NREG_CNT];
	struct patch *p = NULL;
	uint32_t k = 0;
	bool inside = false;

	if (si->si_code == SI_KERNEL && !(p = udt__patch_find(pc)))
		inside = (p = displaced_at(pc, &k)) != NULL;
	uint32_t state = p ? LOAD_ACQUIRE(&p->state) : P_RESTORED;
	/*
	 * (The byte at pc is read directly: this thread ran it a moment ago, and an
	 * object is not unloaded from under a thread that runs its code.)
	 */
	if (!p) {
		chain(sig, si, ucv);
	} else if (*(volatile uint8_t *)(uintptr_t)pc != UDT_INT3) {
		/* restored (or jumped) since it trapped: run what is there now */
		uc->uc_mcontext.gregs[REG_RIP] = (greg_t)pc;
	} else if (state == P_RESTORED || (inside && state != P_JUMP)) {
		chain(sig, si, ucv); /* someone else's int3 where ours was */
	} else if (inside) {
		/* a thread resuming inside the bytes a jump displaced: their copy (before an
		   instruction site's probed instruction, the copies that lead to its fire) */
		uc->uc_mcontext.gregs[REG_RIP] = (greg_t)p->at[k];
	} else {
		for (int r = 0; r < UDT_NREG_CNT; r++)
			gpr[r] = (uint64_t)uc->uc_mcontext.gregs[greg_of[r]];
		/* the fire sees the thread at the site (uregs[R_PC], ustack()'s first frame),
		   as a jumped site's does, not after the int3 */
		uc->uc_mcontext.gregs[REG_RIP] = (greg_t)pc;
		if (!nested)
			udt__site_fire(p, gpr, (const uint8_t *)uc->uc_mcontext.fpregs, uc);
		/* after the nop, or (a site on its way to or from a jump, an instruction) in its
		   trampoline */
		uc->uc_mcontext.gregs[REG_RIP] = (greg_t)(state == P_JUMP || p->kind == UDT_SITE_INSN
								  ? p->resume : pc + 1);
	}
	if (errp)
		*errp = saved_errno;
	t->traps--;
}

/* -- The sync -------------------------------------------------------------------------------- */

static int install_handler(void)
{
	struct sigaction sa, old;

	if (sigaction(SIGTRAP, NULL, &old))
		return -errno;
	if ((old.sa_flags & SA_SIGINFO) && old.sa_sigaction == on_trap)
		return 0;
	/* (installed again over one the application put in our place: it is chained to) */
	st.old = old;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_trap;
	sigemptyset(&sa.sa_mask);
	/* (SA_NODEFER: what the handler calls may meet a trap of ours: on_trap()) */
	sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_NODEFER | (old.sa_flags & SA_ONSTACK);
	if (sigaction(SIGTRAP, &sa, NULL))
		return -errno;
	st.handler = true;
	return 0;
}

static int32_t parse_tid(const char *s)
{
	int32_t v = 0;

	while (*s >= '0' && *s <= '9')
		v = v * 10 + (*s++ - '0');
	return v;
}

/*
 * A thread of the process that blocks SIGTRAP (the kernel would kill it at
 * our int3): its tid, or 0. From /proc/self/task/N/status's SigBlk. The
 * calling thread is not one: the consumer's injected call runs with every
 * signal blocked, and its mask is put back after.
 */
static int32_t sigtrap_blocker(int32_t self)
{
	int dfd = (int)syscall(SYS_openat, AT_FDCWD, "/proc/self/task",
			       O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int32_t who = 0;

	if (dfd < 0)
		return 0; /* no /proc: nothing can be checked */
	for (;;) {
		long n = syscall(SYS_getdents64, dfd, st.dents, sizeof(st.dents));
		if (n <= 0)
			break;
		for (long off = 0; off < n && !who;) {
			unsigned short reclen;
			memcpy(&reclen, st.dents + off + 16, sizeof(reclen));
			const char *name = st.dents + off + 19;
			char path[64];
			size_t nl = strlen(name);
			off += reclen ? reclen : n;
			if (*name < '0' || *name > '9' || nl > 16)
				continue;
			memcpy(path, name, nl);
			memcpy(path + nl, "/status", sizeof("/status"));
			int fd = (int)syscall(SYS_openat, dfd, path, O_RDONLY | O_CLOEXEC);
			if (fd < 0)
				continue;
			long len = syscall(SYS_read, fd, st.status, sizeof(st.status) - 1);
			close(fd);
			if (len <= 0)
				continue;
			st.status[len] = '\0';
			const char *b = strstr(st.status, "\nSigBlk:\t");
			if (!b)
				continue;
			/* hex digits, signal 1 the lowest bit: SIGTRAP (5) is bit 0 of the
			   second digit from the right */
			const char *hex = b + 9;
			size_t hl = strspn(hex, "0123456789abcdef");
			int digit = hl < 2 ? 0 : hex[hl - 2] >= 'a' ? hex[hl - 2] - 'a' + 10
								     : hex[hl - 2] - '0';
			if ((digit & 1) && parse_tid(name) != self)
				who = parse_tid(name);
		}
		if (who)
			break;
	}
	close(dfd);
	return who;
}

/*
 * The other instruction sites of the live sessions (n[s] sites at sites[s])
 * in the bytes of instruction site s's jump, where an instruction of its
 * starts: a bit each, k bytes after its start (struct udt_site's join_mask).
 */
static uint32_t joins_of(const struct udt_site *s, const struct udt_site *const *sites,
			 const int *n)
{
	uint64_t start = s->addr - s->fire_off;
	uint32_t joins = 0;

	for (uint32_t i = 0; s->kind == UDT_SITE_INSN && i < s->insn_cnt; i++) {
		uint32_t k = s->insn[i].off;
		if (k <= s->fire_off || k >= 32)
			continue;
		for (uint32_t slot = 0; slot < UDT_SLOT_MAX; slot++) {
			const struct udt_site *o = n[slot] > 0 ? site_search(sites[slot], n[slot],
									     start + k) : NULL;
			if (o && o->kind == UDT_SITE_INSN) {
				joins |= 1u << k;
				break;
			}
		}
	}
	return joins;
}

/* Is addr a site of one of the sessions' tables (n[s] sites at sites[s])? */
static bool wanted(const struct udt_site *const *sites, const int *n, uint64_t addr)
{
	for (uint32_t s = 0; s < UDT_SLOT_MAX; s++)
		if (n[s] > 0 && site_search(sites[s], n[s], addr))
			return true;
	return false;
}

/*
 * May this process's memory be that of a live session's process that it is
 * not: a vfork child's (its parent's text, its parent's patches), or one it
 * cannot tell (udt__shares_mm())? Then the sync leaves the text alone.
 */
static bool foreign_memory(void)
{
	int self = udt__safe_getpid();

	for (uint32_t s = 0; s < UDT_SLOT_MAX; s++) {
		struct udt_control *c = &udt__ctl.slots[s];
		int32_t pid = LOAD_RELAXED(&c->pid);
		if (udt__active(c) && LOAD_RELAXED(&c->session) && pid && pid != self &&
		    udt__shares_mm(pid) != 0)
			return true;
	}
	return false;
}

void udt__sites_sync(bool wait)
{
	/* what it calls of the C library (errno's location, a write, a membarrier) may be a
	   probe site it patched: those are its own (udt__site_fire()) */
	bool was_quiet = udt__tls.quiet;
	udt__tls.quiet = true;
	int saved_errno = errno;
	int32_t tid = gettid_raw();
	const struct udt_site *sites[UDT_SLOT_MAX];
	int n[UDT_SLOT_MAX], err = 0, fd = -1;
	uint32_t patched[UDT_SLOT_MAX] = { 0 };
	bool any = false;

	if (foreign_memory() || !(wait ? lock_wait(tid) : try_lock(tid))) {
		errno = saved_errno;
		udt__tls.quiet = was_quiet;
		return;
	}
	/* every live session's sites (a fork child's parent's are not ours: none of them) */
	for (uint32_t s = 0; s < UDT_SLOT_MAX; s++) {
		n[s] = live_sites(s, &sites[s]);
		if (n[s] < 0) {
			struct udt_control *c = &udt__ctl.slots[s];
			uint32_t session = LOAD_RELAXED(&c->session);
			STORE_RELAXED(&c->bad_session, session);
			udt__session_end(c, session, UDT_STATE_DETACHED);
			n[s] = 0;
		}
		any |= n[s] > 0;
	}
	if (!any && !st.npatch)
		goto out; /* (nothing was ever patched: nothing to do, not even a file to open) */
	fd = (int)udt__sys(SYS_openat, AT_FDCWD, (long)(uintptr_t)"/proc/self/mem", O_RDWR | O_CLOEXEC,
			   0, 0, 0);
	/* what no session has any more */
	for (uint32_t i = 0; i < st.npatch; i++) {
		struct patch *p = &st.patch[i];
		if (!wanted(sites, n, p->addr)) {
			STORE_RELAXED(&p->site, NULL);
			STORE_RELEASE(&p->site_tag, 0);
			if (LOAD_RELAXED(&p->state) == P_JUMP)
				queue_restore(fd, p);
			else if (LOAD_RELAXED(&p->state) != P_RESTORED)
				restore_site(fd, p);
		}
	}
	/* (before the sites are patched: a site may take the bytes one of these held) */
	job_patched = patched;
	flush_jobs(fd);
	if (any) {
		int32_t blocker = sigtrap_blocker(tid);
		if (blocker) {
			err = -EDEADLK;
			for (uint32_t s = 0; s < UDT_SLOT_MAX; s++)
				if (n[s] > 0)
					STORE_RELAXED(&udt__ctl.slots[s].site_tid, blocker);
		} else {
			err = install_handler();
		}
	}
	bool jumps = any && !err && udt__tramp_ready();
	for (uint32_t s = 0; s < UDT_SLOT_MAX; s++) {
		for (int i = 0; i < n[s] && !err; i++) {
			const struct udt_site *site = &sites[s][i];
			uint8_t status = site->kind == UDT_SITE_INSN && site->join_back
						 ? joined_site(fd, site)
					 : jumps && site->mode == UDT_SITE_JUMP
						 ? jump_site(fd, site, joins_of(site, sites, n), s)
						 : trap_site(fd, site);
			struct patch *p = udt__patch_find(site->addr);
			if (p) {
				/* for the trap and the trampoline: the site's arguments, from here */
				STORE_RELAXED(&p->site, site);
				STORE_RELEASE(&p->site_tag, (uint64_t)LOAD_RELAXED(
					&udt__ctl.slots[s].session) << 8 | s);
			}
			/* (the area's only field the runtime writes: the consumer reads why, per site;
			   a site two sessions have is patched once, and both say so) */
			STORE_RELAXED((uint8_t *)&site->status, status);
			patched[s] += status == UDT_SITE_PATCHED || status == UDT_SITE_JUMPED;
		}
	}
	flush_jobs(fd);
	job_patched = NULL;
out:
	if (fd >= 0)
		udt__sys(SYS_close, fd, 0, 0, 0, 0, 0);
	for (uint32_t s = 0; s < UDT_SLOT_MAX; s++) {
		struct udt_control *c = &udt__ctl.slots[s];
		if (n[s] <= 0 && !LOAD_RELAXED(&c->site_armed))
			continue; /* (nothing of it to say, nor to take back) */
		STORE_RELAXED(&c->site_errno, n[s] > 0 ? -err : 0);
		STORE_RELAXED(&c->site_cnt, patched[s]);
		STORE_RELEASE(&c->site_armed, n[s] > 0 && patched[s] ? LOAD_RELAXED(&c->session) : 0);
	}
	STORE_RELEASE(&st.lock, 0);
	errno = saved_errno;
	udt__tls.quiet = was_quiet;
}
