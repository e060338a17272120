/* SPDX-License-Identifier: MIT */
/*
 * Trampolines for SystemTap sites (docs/notes.md, "Trampolines"): a site's
 * nop and the instructions after it, five bytes in all at least, become a
 * jump to an entry of our own, which fires the probe (tramp_x86_64.S, then
 * udt__tramp_fire()) and runs the instructions the jump displaced, moved
 * (relocated as the consumer planned: struct udt_site_insn), before jumping
 * back after them. No signal, no system call: a fraction of a trap.
 *
 * An entry (at T, within 2 GB of its site, in a page of ours; the eight
 * bytes before T hold udt__tramp_entry's address):
 *
 *	lea -128(%rsp), %rsp        the interrupted code's red zone left alone
 *	push $index                 the site's patch (sites.h)
 *	call *-24(%rip)             udt__tramp_entry (T - 8): save, fire, restore
 *	lea 136(%rsp), %rsp         the index and the red zone gone
 *	the displaced instructions  copies; RIP-relative operands and branches
 *	                            made to reach what they reached; a call
 *	                            pushes its return address in the object
 *	jmp site + len              back
 *
 * The jump is written while other threads run through the site, so that
 * none ever executes a mix of old and new bytes, as the kernel patches its
 * own text (text_poke_bp): an int3 over the nop first, then the jump's
 * other bytes, then its first byte, with every CPU that runs the process
 * made to serialize its instruction stream in between
 * (membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE)). A thread that
 * meets an int3 meanwhile is sent by the handler (sites.c) where it was
 * going: the probe, then the trampoline's copies. And a thread that was
 * between two of the displaced instructions when the jump was written (a
 * signal handler's, a preempted or stopped thread) would resume inside the
 * jump's displacement: so every byte of the jump that stands where an
 * instruction starts is 0xcc, an int3, and the trampoline's address is
 * chosen to make it so (the displacement's bytes at those places are 0xcc:
 * the placement below). The handler sends such a thread to the copy of the
 * instruction it was about to run. Restoring is the same in reverse. A
 * trampoline is never unmapped: a thread may be in it, and a site jumped
 * again later uses it again.
 *
 * An instruction site of the pid provider (UDT_SITE_INSN: docs/pid.md) has
 * the same, but that its jump starts at an instruction (the probed one, or
 * one before it in the same straight line: a return probe's ret may need
 * them to make five bytes), and the entry runs the instructions before the
 * probed one first, then fires, then runs the probed one and those after:
 *
 *	the instructions before the probed one, copies
 *	lea -128(%rsp), %rsp ... lea 136(%rsp), %rsp      the fire, as above
 *	the probed instruction and those after it, copies
 *	jmp site + len
 *
 * A trapped instruction site has an entry too, never jumped to: its
 * instruction alone, after the fire, which the handler sends the thread to
 * once it has fired the probe from the trap (udt__tramp_ool()).
 *
 * Where: /proc/self/maps gives the gaps within 2 GB of the site; the first
 * address that a page of ours already has room at, or failing that, in the
 * gap nearest the site, whose displacement has the bytes the boundaries
 * need. A constraint on the displacement's last byte (a one-byte
 * instruction at offset 4) puts the trampoline near 860 MB below the site:
 * where that is not free, the site is trapped instead.
 */
#include "runtime/sites.h"

#include <cpuid.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/membarrier.h>
#include <linux/prctl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PAGE 4096ull
#define MAX_PAGES 1024
#define ENTRY_MAX 256             /* bytes of an entry, at most */
#define LIT 8                     /* before it: the address of udt__tramp_entry */
#define MAPS_BUF 65536
#define USER_TOP 0x7ffffffff000ull
#define LOW_TOP 0x10000ull        /* below: never mapped (vm.mmap_min_addr's default) */

/* tramp_x86_64.S */
extern const char udt__tramp_entry[];
void udt__tramp_fire(uint64_t *frame, const uint8_t *fx);

/* The pages of trampolines, each a page of ours: under the sync's lock. */
static struct {
	int ready;                /* 0 unknown, 1 membarrier's core serialization works, -1 not */
	uint32_t npages;
	struct { uint64_t addr, used; } page[MAX_PAGES];
	char maps[MAPS_BUF];      /* /proc/self/maps, a part at a time */
} tr;

bool udt__tramp_ready(void)
{
#if defined(__x86_64__)
	unsigned a, b, c = 0, d;
	/* the entry restores the flags with sahf, which the first x86-64 CPUs lack in 64-bit
	   mode (CPUID LAHF-LM): traps there */
	if (!tr.ready)
		tr.ready = !__get_cpuid(0x80000001, &a, &b, &c, &d) || !(c & 1) ||
				   syscall(SYS_membarrier,
					   MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE, 0, 0)
			   ? -1 : 1;
	return tr.ready > 0;
#else
	return false;
#endif
}

/* Every thread's next instruction fetch sees what was written before. */
static void sync_core(void)
{
	(void)udt__sys(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE, 0, 0, 0, 0, 0);
}

/* -- Where ----------------------------------------------------------------------------------- */

/* The bits of c, from the lowest, put in the places of free's set bits (PDEP). */
static uint32_t deposit(uint32_t c, uint32_t free)
{
	uint32_t y = 0;

	for (uint32_t b = 1; free; b <<= 1, free &= free - 1)
		if (c & b)
			y |= free & -free;
	return y;
}

/*
 * The smallest u >= x whose bits in mask are val, or UINT64_MAX. Over the
 * values with those bits, u grows with the rest, read as a number: a
 * binary search of it.
 */
static uint64_t next_fixed(uint64_t x, uint32_t mask, uint32_t val)
{
	uint32_t free = ~mask;
	uint64_t lo = 0, hi = ((uint64_t)1 << __builtin_popcount(free)) - 1;

	if (x > 0xffffffffull || (deposit((uint32_t)hi, free) | val) < x)
		return UINT64_MAX;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if ((deposit((uint32_t)mid, free) | val) >= x)
			hi = mid;
		else
			lo = mid + 1;
	}
	return deposit((uint32_t)lo, free) | val;
}

/*
 * The first T in [lo, hi] (entry bytes fitting below hi + size) whose
 * displacement from base, T - base, is within 32 bits and has the bytes
 * mask says equal to val's; 0 when none.
 */
static uint64_t fit(uint64_t lo, uint64_t hi, uint64_t base, uint32_t mask, uint32_t val)
{
	/* in the displacement's space biased by 2^31: [0, 2^32) */
	int64_t dlo = (int64_t)(lo - base), dhi = (int64_t)(hi - base);

	if (dlo < INT32_MIN)
		dlo = INT32_MIN;
	if (dhi > INT32_MAX)
		dhi = INT32_MAX;
	if (dlo > dhi)
		return 0;
	uint64_t u = next_fixed((uint64_t)(dlo + 0x80000000ll), mask, val ^ (0x80000000u & mask));
	if (u == UINT64_MAX || (int64_t)u - 0x80000000ll > dhi)
		return 0;
	return base + (uint64_t)((int64_t)u - 0x80000000ll);
}

/* A hexadecimal number at *s (moved past it). */
static uint64_t hex(const char **s)
{
	uint64_t v = 0;

	for (;; (*s)++) {
		char c = **s;
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
		if (d < 0)
			return v;
		v = v << 4 | (uint64_t)d;
	}
}

/*
 * Where an entry may be besides: within 2 GB of every address its relocated
 * instructions name (a RIP-relative operand's, a branch's), [reach.lo,
 * reach.hi). Under the sync's lock.
 */
static struct { uint64_t lo, hi; } reach = { 0, UINT64_MAX };

/* An entry's address in the free range [lo, hi) leaving LIT bytes before it, or 0. */
static uint64_t fit_in(uint64_t lo, uint64_t hi, uint64_t base, uint32_t mask, uint32_t val)
{
	if (lo < reach.lo)
		lo = reach.lo;
	if (hi > reach.hi)
		hi = reach.hi;
	if (hi < lo + LIT + ENTRY_MAX)
		return 0;
	return fit(lo + LIT, hi - ENTRY_MAX, base, mask, val);
}

/*
 * A new page (or two) of ours for an entry whose displacement from base has
 * the bytes of mask equal to val's: in the first gap of /proc/self/maps,
 * in address order, that has such an address within 2 GB of base (fit()
 * keeps to that). The entry's address, or 0.
 */
static uint64_t map_near(uint64_t base, uint32_t mask, uint32_t val)
{
	int fd = (int)udt__sys(SYS_openat, AT_FDCWD, (long)(uintptr_t)"/proc/self/maps",
			       O_RDONLY | O_CLOEXEC, 0, 0, 0);
	uint64_t prev_end = LOW_TOP, t = 0;
	size_t have = 0;
	bool eof = false;

	if (fd < 0)
		return 0;
	/* each gap between two mappings, in address order; the last one up to the top */
	while (!t && (!eof || have)) {
		if (!eof) {
			long n = udt__sys(SYS_read, fd, (long)(uintptr_t)(tr.maps + have),
					  (long)(MAPS_BUF - 1 - have), 0, 0, 0);
			if (n <= 0)
				eof = true;
			else
				have += (size_t)n;
		}
		char *nl = memchr(tr.maps, '\n', have);
		uint64_t start = USER_TOP, end = USER_TOP;
		if (!nl && !eof && have < MAPS_BUF - 1)
			continue;
		if (nl) {
			const char *p = tr.maps;
			start = hex(&p);
			end = *p == '-' ? (p++, hex(&p)) : start;
			size_t used = (size_t)(nl + 1 - tr.maps);
			memmove(tr.maps, nl + 1, have - used);
			have -= used;
		} else {
			have = 0; /* (a line longer than the buffer, or the end: the last gap) */
		}
		if (start > prev_end)
			t = fit_in(prev_end, start, base, mask, val);
		if (end > prev_end)
			prev_end = end;
	}
	udt__sys(SYS_close, fd, 0, 0, 0, 0, 0);
	uint64_t pg = (t - LIT) & ~(PAGE - 1), len = ((t + ENTRY_MAX + PAGE - 1) & ~(PAGE - 1)) - pg;
	if (!t || tr.npages + len / PAGE > MAX_PAGES)
		return 0;
	long m = udt__sys(SYS_mmap, (long)pg, (long)len, PROT_READ | PROT_EXEC,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (m < 0 && m > -4096)
		return 0;
	if ((uint64_t)m != pg) {
		/* (a kernel that took MAP_FIXED_NOREPLACE for a hint) */
		udt__sys(SYS_munmap, m, (long)len, 0, 0, 0, 0);
		return 0;
	}
	/* named in /proc/PID/maps, [anon:udtrace:trampolines], where the kernel names
	   anonymous memory (5.17, CONFIG_ANON_VMA_NAME): the runtime's, and kept */
	static const char name[] = "udtrace:trampolines";
	udt__sys(SYS_prctl, PR_SET_VMA, PR_SET_VMA_ANON_NAME, m, (long)len, (long)name, 0);
	/* the room after the entry, in its last page, is the next one's */
	for (uint64_t a = pg; a < pg + len; a += PAGE) {
		tr.page[tr.npages].addr = a;
		tr.page[tr.npages].used = a + PAGE < t + ENTRY_MAX ? PAGE : t + ENTRY_MAX - a;
		tr.npages++;
	}
	return t;
}

/*
 * Where the entry of the site at addr goes: in a page of ours with room at
 * an address that suits it, else in new pages. mask, val: the bytes of the
 * displacement that must be 0xcc. 0 when nowhere.
 */
static uint64_t place(uint64_t addr, uint32_t mask, uint32_t val)
{
	uint64_t base = addr + UDT_SITE_JMP_LEN;

	for (uint32_t i = 0; i < tr.npages; i++) {
		uint64_t a = tr.page[i].addr;
		uint64_t t = fit_in(a + tr.page[i].used, a + PAGE, base, mask, val);
		if (t) {
			tr.page[i].used = t + ENTRY_MAX - a;
			return t;
		}
	}
	return map_near(base, mask, val);
}

/* -- Building an entry ---------------------------------------------------------------------- */

struct emit {
	uint8_t b[LIT + ENTRY_MAX];
	size_t n;
	uint64_t at;              /* where b goes: the entry's address less LIT */
	bool bad;                 /* something did not fit, or out of reach */
};

static void put(struct emit *e, const void *p, size_t n)
{
	if (e->n + n > sizeof(e->b)) {
		e->bad = true;
		return;
	}
	memcpy(e->b + e->n, p, n);
	e->n += n;
}

/* A 32-bit displacement from the end of the bytes emitted so far plus after to target. */
static void rel32(struct emit *e, uint64_t target, size_t after)
{
	int64_t d = (int64_t)(target - (e->at + e->n + after));
	int32_t v = (int32_t)d;

	if (d != v)
		e->bad = true;
	put(e, &v, 4);
}

/* Where site s's bytes start: its nop, or (an instruction site) the window before it. */
static uint64_t win(const struct udt_site *s)
{
	return s->kind == UDT_SITE_INSN ? s->addr - s->fire_off : s->addr;
}

/* Where patch p's bytes start, as its trampoline has them. */
static uint64_t p_win(const struct patch *p)
{
	return p->addr - p->fire_off;
}

/* Emit a copy of instruction in of site s, relocated as it says. */
static void copy_insn(struct emit *e, const struct udt_site *s, const struct udt_site_insn *in)
{
	static const uint8_t jmp = 0xe9;
	const uint8_t *b = s->bytes + in->off;

	switch (in->kind) {
	case UDT_RELOC_COPY:
		put(e, b, in->len);
		break;
	case UDT_RELOC_RIPREL:
		put(e, b, in->fix);
		rel32(e, in->target, 4 + (size_t)(in->len - in->fix - 4));
		put(e, b + in->fix + 4, (size_t)(in->len - in->fix - 4));
		break;
	case UDT_RELOC_JMP:
		put(e, &jmp, 1);
		rel32(e, in->target, 4);
		break;
	case UDT_RELOC_JCC: {
		uint8_t jcc[2] = { 0x0f, (uint8_t)(0x80 | in->fix) };
		put(e, jcc, 2);
		rel32(e, in->target, 4);
		break;
	}
	case UDT_RELOC_CALL: {
		/* its return address, the one in the object, then the callee:
		   lea -8(%rsp),%rsp; push %rax; movabs $ret,%rax; mov %rax,8(%rsp);
		   pop %rax; jmp target (no flag changed, no register) */
		static const uint8_t a[] = { 0x48, 0x8d, 0x64, 0x24, 0xf8, 0x50, 0x48, 0xb8 };
		static const uint8_t c[] = { 0x48, 0x89, 0x44, 0x24, 0x08, 0x58 };
		uint64_t ret = win(s) + in->off + in->len;
		put(e, a, sizeof(a));
		put(e, &ret, 8);
		put(e, c, sizeof(c));
		put(e, &jmp, 1);
		rel32(e, in->target, 4);
		break;
	}
	default:
		e->bad = true;
	}
}

/* The fire of the probe delta bytes after patch idx's site (push $value; call ...). */
static void fire_seq(struct emit *e, uint64_t t, uint32_t idx, uint32_t delta)
{
	static const uint8_t skip_red[] = { 0x48, 0x8d, 0x64, 0x24, 0x80 };
	static const uint8_t back_red[] = { 0x48, 0x8d, 0xa4, 0x24, 0x88, 0, 0, 0 };
	uint8_t push = 0x68, call[2] = { 0xff, 0x15 };
	uint32_t v = idx | delta << 24;

	put(e, skip_red, sizeof(skip_red));
	put(e, &push, 1);
	put(e, &v, 4);
	put(e, call, 2);
	rel32(e, t - LIT, 4);
	put(e, back_red, sizeof(back_red));
}

/* The probed instructions of instruction site s, bit k for the one k bytes after its start. */
static uint32_t points_of(const struct udt_site *s)
{
	return s->kind == UDT_SITE_INSN ? s->join_mask | 1u << s->fire_off : 0;
}

/*
 * The bytes of s's trampoline at t for patch index idx: where a thread at
 * each offset of the jump goes on (at[]), and where a trap's fire does
 * (*ret_resume). A note site fires first, then runs the instructions after
 * its nop; an instruction site runs its instructions, each probed one after
 * its fire.
 */
static bool build(struct emit *e, uint64_t t, uint32_t idx, const struct udt_site *s,
		  uint64_t *at, uint64_t *ret_resume)
{
	uint8_t jmp = 0xe9;
	uint32_t points = points_of(s);

	memset(e, 0, sizeof(*e));
	uint64_t entry = (uint64_t)(uintptr_t)udt__tramp_entry;

	/* the literal the call reads, just before the entry */
	e->at = t - LIT;
	put(e, &entry, LIT);
	if (s->kind == UDT_SITE_NOTE) {
		fire_seq(e, t, idx, 0);
		*ret_resume = e->at + e->n;
	}
	for (uint32_t i = 0; i < s->insn_cnt; i++) {
		const struct udt_site_insn *in = &s->insn[i];
		if (in->off < UDT_SITE_JMP_LEN)
			at[in->off] = e->at + e->n;
		if (in->off < 32 && (points >> in->off & 1)) {
			/* (the delta from the site, the patch's identity, to the probe) */
			fire_seq(e, t, idx, in->off - s->fire_off);
			if (in->off == s->fire_off)
				*ret_resume = e->at + e->n;
		}
		copy_insn(e, s, in);
	}
	put(e, &jmp, 1);
	rel32(e, win(s) + s->len, 4);
	return !e->bad;
}

/* Is instruction in of s one that never goes on to the bytes after it (a ret or a jmp)? */
static bool ends_flow(const struct udt_site *s, const struct udt_site_insn *in)
{
	const uint8_t *b = s->bytes + in->off;
	uint8_t op = b[0] == 0xf3 && in->len > 1 ? b[1] : b[0]; /* (rep ret) */

	return in->kind == UDT_RELOC_JMP ||
	       (in->kind == UDT_RELOC_COPY && (op == 0xc3 || op == 0xc2));
}

/*
 * The plan of site s is one this runtime can carry out: its instructions
 * tile its bytes (but for an instruction site's padding after a ret or a
 * jmp, never run), and a jump has five bytes; *ret_bound says which of
 * them start an instruction.
 */
static bool plan_ok(const struct udt_site *s, uint8_t *ret_bound)
{
	bool insn = s->kind == UDT_SITE_INSN;
	uint32_t off = insn ? 0 : 1;
	uint8_t bound = 1;

	if (s->len > UDT_SITE_BYTES_MAX || !s->insn_cnt || s->insn_cnt > UDT_SITE_INSN_MAX ||
	    (s->mode == UDT_SITE_JUMP && s->len < UDT_SITE_JMP_LEN) ||
	    (!insn && s->bytes[0] != UDT_SITE_NOP) || (insn && s->fire_off >= s->len))
		return false;
	for (uint32_t i = 0; i < s->insn_cnt; i++) {
		const struct udt_site_insn *in = &s->insn[i];
		if (in->off != off || (!insn && off >= UDT_SITE_JMP_LEN) || !in->len || in->len > 15 ||
		    in->off + in->len > s->len ||
		    in->kind < UDT_RELOC_COPY || in->kind > UDT_RELOC_CALL ||
		    (in->kind == UDT_RELOC_RIPREL && in->fix + 4u > in->len) ||
		    (in->kind == UDT_RELOC_JCC && in->fix > 15))
			return false;
		if (off < UDT_SITE_JMP_LEN)
			bound |= (uint8_t)(1u << off);
		off += in->len;
	}
	/* the probed instructions start some of them: the site's, and those joined after it */
	uint32_t starts = 0;
	for (uint32_t i = 0; i < s->insn_cnt; i++)
		if (s->insn[i].off < 32)
			starts |= 1u << s->insn[i].off;
	if (insn && ((points_of(s) & ~starts) || (s->join_mask & ((2u << s->fire_off) - 1)) ||
		     s->fire_off > s->addr || (s->mode != UDT_SITE_JUMP && s->join_mask)))
		return false;
	*ret_bound = bound;
	return off == s->len || (insn && ends_flow(s, &s->insn[s->insn_cnt - 1]));
}

/* Make p's trampoline for s (a jump's when mask asks bytes of the displacement for the
   boundaries, an out-of-line copy's when 0), unless it has the one s needs. 0 or -errno. */
static int tramp_for(int fd, struct patch *p, const struct udt_site *s, uint8_t bound,
		     uint32_t mask, uint32_t val)
{
	uint64_t at[UDT_SITE_JMP_LEN] = { 0 }, resume = 0;
	struct emit e;

	if (p->tramp && p->len == s->len && p->bound == bound && p->fire_off == s->fire_off &&
	    p->points == points_of(s) && !memcmp(p->bytes, s->bytes, s->len))
		return 0;
	/* (every address a copy names within 2 GB of all of the entry) */
	reach.lo = 0;
	reach.hi = UINT64_MAX;
	for (uint32_t i = 0; i < s->insn_cnt; i++) {
		uint64_t x = s->insn[i].target;
		if (s->insn[i].kind == UDT_RELOC_COPY)
			continue;
		uint64_t lo = x > 0x7fff0000ull ? x - 0x7fff0000ull : 0;
		uint64_t hi = x < UINT64_MAX - 0x7fff0000ull ? x + 0x7fff0000ull : UINT64_MAX;
		reach.lo = lo > reach.lo ? lo : reach.lo;
		reach.hi = hi < reach.hi ? hi : reach.hi;
	}
	uint64_t t = reach.lo < reach.hi ? place(win(s), mask, val) : 0;
	reach.lo = 0;
	reach.hi = UINT64_MAX;
	if (!t || !build(&e, t, udt__patch_index(p), s, at, &resume) ||
	    udt__text_write(fd, t - LIT, e.b, e.n))
		return -ENOSPC;
	p->len = s->len;
	p->bound = bound;
	p->fire_off = s->fire_off;
	p->points = points_of(s);
	memcpy(p->bytes, s->bytes, s->len);
	memcpy(p->at, at, sizeof(at));
	p->resume = s->kind == UDT_SITE_INSN ? resume : at[1];
	STORE_RELEASE(&p->tramp, t); /* (pairs with nothing yet: the state says which later) */
	return 0;
}

int udt__tramp_ool(int fd, struct patch *p, const struct udt_site *s)
{
	uint8_t bound;

	if (s->kind != UDT_SITE_INSN || s->insn_cnt != 1 || s->fire_off || !plan_ok(s, &bound) ||
	    s->insn[0].len != s->len)
		return -EINVAL;
	return tramp_for(fd, p, s, bound, 0, 0);
}

/* -- Jumping and back ----------------------------------------------------------------------- */

/* Write, at the site, offsets [1, 5) where the bits of which are set: from bytes. */
static int write_some(int fd, const struct patch *p, unsigned which, const uint8_t *bytes)
{
	for (uint32_t k = 1; k < UDT_SITE_JMP_LEN; k++) {
		int err = (which >> k) & 1 ? udt__text_write(fd, p_win(p) + k, &bytes[k], 1) : 0;
		if (err)
			return err;
	}
	return 0;
}

/* The mask and value of the jump's displacement bytes that must be int3s (the boundaries). */
static void bound_bytes(uint8_t bound, uint32_t *ret_mask, uint32_t *ret_val)
{
	*ret_mask = *ret_val = 0;
	for (uint32_t k = 1; k < UDT_SITE_JMP_LEN; k++)
		if (bound & (1u << k)) {
			*ret_mask |= 0xffu << (8 * (k - 1));
			*ret_val |= (uint32_t)UDT_INT3 << (8 * (k - 1));
		}
}

/*
 * A jump made, moved or taken back is written in four phases, every
 * thread's core serialized after each (sync_core()), so that no thread ever
 * runs a half-written instruction: many sites' phases at once, one sync a
 * phase for them all (udt__tjobs_run(); sites.c's sync batches them). The
 * phases:
 *
 *   0  (udt__tramp_patch_begin(), udt__tramp_restore_begin()) an int3 over
 *      the first byte: from here a trap at the site or at a boundary of the
 *      bytes is the jump's (sites.c);
 *   1  a jump: the displacement's bytes at the boundaries of the displaced
 *      instructions (int3s, as sites.c expects); back: the others;
 *   2  the rest of the displacement; back: the boundaries' bytes;
 *   3  the e9 over the int3; back: the first byte.
 *
 * A jump moved to a new trampoline (more probes fired from it) writes no
 * boundary (they stay int3s) and a thread in the old trampoline finishes
 * there (it is never unmapped).
 */

enum { TJ_PATCH = 1, TJ_RETARGET, TJ_RESTORE };

/* The jump, e9 and displacement, from the site's window to p's trampoline. */
static void jump_bytes(const struct patch *p, uint64_t window, uint8_t *jmp)
{
	int32_t d = (int32_t)(p->tramp - (window + UDT_SITE_JMP_LEN));

	jmp[0] = 0xe9;
	memcpy(jmp + 1, &d, 4);
}

static int begin_retarget(int fd, struct patch *p, const struct udt_site *s, uint8_t bound,
			  struct udt_tjob *j)
{
	uint8_t int3 = UDT_INT3;
	uint32_t mask, val;
	int err;

	if (p->len != s->len || p->fire_off != s->fire_off || p->bound != bound ||
	    memcmp(p->bytes, s->bytes, s->len))
		return -ESTALE; /* (another plan of the same bytes: it stays as it is) */
	bound_bytes(bound, &mask, &val);
	err = tramp_for(fd, p, s, bound, mask, val);
	if (err)
		return err;
	*j = (struct udt_tjob){ .p = p, .kind = TJ_RETARGET };
	jump_bytes(p, win(s), j->jmp);
	return udt__text_write(fd, win(s), &int3, 1);
}

int udt__tramp_patch_begin(int fd, struct patch *p, const struct udt_site *s, struct udt_tjob *j)
{
	uint8_t bound, cur[UDT_SITE_BYTES_MAX], int3 = UDT_INT3;
	uint32_t state = LOAD_RELAXED(&p->state);
	int err;

	if (s->mode != UDT_SITE_JUMP || !plan_ok(s, &bound) ||
	    udt__safe_copy(cur, win(s), s->len))
		return -EINVAL;
	if (state == P_JUMP)
		return begin_retarget(fd, p, s, bound, j);
	/* the bytes are the plan's (the nop or the instruction, or our int3 over it: at the
	   probed instruction, which may be after the jump's start) */
	uint32_t trap_off = s->kind == UDT_SITE_INSN ? s->fire_off : 0;
	bool int3_at_start = cur[0] == UDT_INT3, int3_at_probe = false;
	if (state == P_TRAP && cur[trap_off] == UDT_INT3) {
		cur[trap_off] = s->bytes[trap_off];
		int3_at_probe = true;
	}
	if (memcmp(cur, s->bytes, s->len))
		return -ESTALE;
	/* a trampoline of its own: the one it had, if it displaced the same */
	uint32_t mask, val;
	bound_bytes(bound, &mask, &val);
	err = tramp_for(fd, p, s, bound, mask, val);
	if (err)
		return err;
	*j = (struct udt_tjob){ .p = p, .kind = TJ_PATCH, .state = state,
				.unprobe = int3_at_probe && trap_off >= UDT_SITE_JMP_LEN ? s->addr : 0,
				.unprobe_byte = s->bytes[trap_off] };
	jump_bytes(p, win(s), j->jmp);
	STORE_RELEASE(&p->state, P_JUMP);
	err = int3_at_start && int3_at_probe && !trap_off ? 0 : udt__text_write(fd, win(s), &int3, 1);
	if (err)
		STORE_RELEASE(&p->state, state);
	return err;
}

bool udt__tramp_restore_begin(int fd, struct patch *p, struct udt_tjob *j)
{
	uint8_t cur, int3 = UDT_INT3;

	/* an object unloaded meanwhile: nothing to write */
	if (udt__safe_copy(&cur, p_win(p), 1)) {
		STORE_RELEASE(&p->state, P_RESTORED);
		return false;
	}
	*j = (struct udt_tjob){ .p = p, .kind = TJ_RESTORE };
	if (cur != UDT_INT3 && cur != p->bytes[0])
		(void)udt__text_write(fd, p_win(p), &int3, 1);
	return true;
}

/* Phase k (1...3) of job j. */
static void phase(int fd, struct udt_tjob *j, int k)
{
	const struct patch *p = j->p;
	bool back = j->kind == TJ_RESTORE;
	const uint8_t *b = back ? p->bytes : j->jmp;
	unsigned rest = ~p->bound & 0x1e;

	if (j->err)
		return;
	if (k == 1 && j->kind != TJ_RETARGET)
		j->err = write_some(fd, p, back ? rest : p->bound, b);
	else if (k == 2)
		j->err = write_some(fd, p, back ? p->bound : rest, b);
	else if (k == 3)
		j->err = udt__text_write(fd, p_win(p), &b[0], 1);
	if (back)
		j->err = 0; /* (taken back as far as it goes: what is written stays written) */
}

void udt__tjobs_run(int fd, struct udt_tjob *v, size_t n)
{
	if (!n)
		return;
	sync_core(); /* (after phase 0) */
	for (int k = 1; k <= 3; k++) {
		for (size_t i = 0; i < n; i++)
			phase(fd, &v[i], k);
		sync_core();
	}
	for (size_t i = 0; i < n; i++) {
		struct udt_tjob *j = &v[i];
		if (j->kind == TJ_RESTORE) {
			STORE_RELEASE(&j->p->state, P_RESTORED);
		} else if (j->kind == TJ_PATCH && !j->err && j->unprobe) {
			/* a trap's int3 past the jump's five bytes goes (a thread that meets it
			   first is the jump's: sites.c fires it and sends it to the copy) */
			j->err = udt__text_write(fd, j->unprobe, &j->unprobe_byte, 1);
		}
		if (j->kind == TJ_PATCH && j->err)
			udt__tramp_restore(fd, j->p); /* (as far as it went) */
	}
}

void udt__tramp_restore(int fd, struct patch *p)
{
	struct udt_tjob j;

	if (udt__tramp_restore_begin(fd, p, &j))
		udt__tjobs_run(fd, &j, 1);
}

/* -- The fire --------------------------------------------------------------------------------- */

/*
 * From udt__tramp_entry: frame is the interrupted thread's general
 * registers (rsp's slot to fill in), its flags, the entry's return address,
 * the site's index, then the red zone; fx its %xmm registers.
 */
void udt__tramp_fire(uint64_t *frame, const uint8_t *fx)
{
	/* what the entry pushed: the patch's index, and the probe's distance from its site */
	uint64_t v = frame[18];
	struct patch *p = udt__patch_at((uint32_t)(v & 0xffffff));
	uint32_t delta = (uint32_t)(v >> 24) & 0xff;

	if (!p)
		return;
	frame[UDT_NREG_RSP] = (uint64_t)(uintptr_t)&frame[19] + 128;
	if (!delta)
		udt__site_fire(p, frame, fx, NULL);
	else
		udt__point_fire(p, p->addr + delta, frame);
}
