/* SPDX-License-Identifier: MIT */
/*
 * ustack(): the user stack of the thread a probe fires in, recorded as
 * return addresses (docs/profile.md, "Stacks"), with libunwind's local
 * unwinder: DWARF call frame information (.eh_frame), so code built without
 * frame pointers unwinds too.
 *
 * Where the walk starts: a profile probe fires from the runtime's SIGPROF
 * handler, which leaves the interrupted context in udt__prof_uc; the walk
 * starts there (unw_init_local2 with UNW_INIT_SIGNAL_FRAME: the first PC is
 * where the thread was, not a return address), so the first frame is
 * arg1's. Any other probe fires from its site's call to udt__fire(): the
 * walk starts here and skips the runtime's own frames up to the site's
 * return address, so the first frame is the function that holds the probe,
 * as DTrace's ustack() shows it.
 *
 * A SystemTap site fires from its int3's signal context (udt__prof_uc, the
 * first PC the one after the site's nop) or from its trampoline, whose
 * saved registers (udt__site_gpr) make the context the walk starts from.
 * The trampoline saved only what the runtime's own code changes
 * (tramp_x86_64.S): libunwind and the C library it calls may change any
 * vector register, so around its use the whole extended state is saved
 * (XSAVE) and put back (struct xstate).
 *
 * Safety: async-signal-safe (libunwind's local unwinder takes no lock a
 * signal could interrupt: it blocks signals while it holds one; it
 * allocates from its own mmap'ed pool; its one-time setup, at the first
 * ustack(), opens the pipe its memory checks write to). Bounded: at most n frames, and the
 * search for the site at most MAX_SKIP. A corrupt stack (a saved frame
 * pointer or return address overwritten) ends the walk: libunwind validates
 * every address it reads while it steps (mincore() and a write of the byte
 * to a pipe, built with its conservative checks, as Debian's is) and a
 * frame that does not move the stack ends it; tests/integration/stack.sh
 * profiles a program that corrupts its frame chain on purpose.
 */
#include "runtime/internal.h"

#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <string.h>
#include <ucontext.h>

#define MAX_SKIP 32

#if defined(__x86_64__)
#include <cpuid.h>

/*
 * The extended state of a trampolined fire, kept around libunwind's use:
 * x87, SSE, AVX, AVX-512 (not AMX's tiles, which nothing here touches) in
 * XSAVE's standard layout, or FXSAVE's 512 bytes where there is no XSAVE.
 */
#define XSTATE_MASK 0xe7u
#define XSTATE_BUF 4096

struct xstate {
	uint8_t buf[XSTATE_BUF + 64];
	uint8_t *x;               /* 64-aligned in buf; NULL: nothing saved */
	uint64_t mask;            /* XSAVE's components, 0: FXSAVE */
};

/*
 * The components to save, and the bytes XSAVE needs for them; 0 without XSAVE.
 * Asked of the CPU once: CPUID is a VM exit under a hypervisor (microseconds:
 * seven of them were 80% of a trampolined fire's ustack() on a KVM guest).
 */
static uint64_t xsave_mask_ask(uint32_t *ret_size)
{
	unsigned a, b, c, d;
	uint32_t lo, hi, size = 576; /* the legacy area and the header */

	*ret_size = 512;
	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE))
		return 0;
	__asm__ __volatile__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	uint64_t mask = ((uint64_t)hi << 32 | lo) & XSTATE_MASK;
	for (unsigned i = 2; i < 8; i++) {
		if (!(mask & (1u << i)))
			continue;
		__cpuid_count(0xd, i, a, b, c, d);
		if (b + a > size)
			size = b + a; /* offset + size of component i */
	}
	*ret_size = size;
	return mask;
}

static uint64_t xsave_mask(uint32_t *ret_size)
{
	/* (size + 1, then the mask: 0 until asked; two threads asking at once ask alike) */
	static uint32_t known_size;
	static uint64_t known_mask;
	uint32_t sz = __atomic_load_n(&known_size, __ATOMIC_ACQUIRE);

	if (sz) {
		*ret_size = sz - 1;
		return __atomic_load_n(&known_mask, __ATOMIC_RELAXED);
	}
	uint64_t mask = xsave_mask_ask(ret_size);
	__atomic_store_n(&known_mask, mask, __ATOMIC_RELAXED);
	__atomic_store_n(&known_size, *ret_size + 1, __ATOMIC_RELEASE);
	return mask;
}

/* Save the extended state if this fire is a trampoline's. False: it cannot be (walk nothing). */
static bool xstate_save(struct xstate *s)
{
	uint32_t size;

	s->x = NULL;
	if (!udt__site_gpr)
		return true;
	s->mask = xsave_mask(&size);
	if (size > XSTATE_BUF)
		return false;
	s->x = (uint8_t *)(((uintptr_t)s->buf + 63) & ~(uintptr_t)63);
	memset(s->x + 512, 0, 64); /* the XSAVE header */
	if (s->mask)
		__asm__ __volatile__("xsave (%0)" : : "r"(s->x), "a"((uint32_t)s->mask),
				     "d"((uint32_t)(s->mask >> 32)) : "memory");
	else
		__asm__ __volatile__("fxsave (%0)" : : "r"(s->x) : "memory");
	return true;
}

static void xstate_restore(const struct xstate *s)
{
	if (!s->x)
		return;
	if (s->mask)
		__asm__ __volatile__("xrstor (%0)" : : "r"(s->x), "a"((uint32_t)s->mask),
				     "d"((uint32_t)(s->mask >> 32)) : "memory");
	else
		__asm__ __volatile__("fxrstor (%0)" : : "r"(s->x) : "memory");
}

/* The order of the signal context's registers, from the x86 encoding's (sites.c's). */
static const int greg_of[16] = {
	REG_RAX, REG_RCX, REG_RDX, REG_RBX, REG_RSP, REG_RBP, REG_RSI, REG_RDI,
	REG_R8,  REG_R9,  REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15,
};
#else
struct xstate {
	int none;
};

static bool xstate_save(struct xstate *s)
{
	(void)s;
	return true;
}

static void xstate_restore(const struct xstate *s)
{
	(void)s;
}
#endif

/*
 * A cursor at the first frame of the fire's stack (where the profile signal
 * interrupted the thread, or the function that holds the probe site): 0,
 * or -1 when there is none. The walk starts in this function's caller's
 * frame: it must be inlined, so that the context it saves stays valid.
 */
static inline __attribute__((always_inline)) int first_frame(unw_cursor_t *cur,
							     unw_context_t *ctx, uint64_t site_pc)
{
	const void *uc = udt__prof_uc;
	unw_word_t ip = 0;

#if defined(__x86_64__)
	if (udt__site_gpr) {
		/* a trampolined SystemTap site: its registers, and the PC after its nop */
		ucontext_t *u = (ucontext_t *)(void *)ctx;
		memset(ctx, 0, sizeof(*ctx));
		for (int r = 0; r < 16; r++)
			u->uc_mcontext.gregs[greg_of[r]] = (greg_t)udt__site_gpr[r];
		u->uc_mcontext.gregs[REG_RIP] = (greg_t)site_pc;
		uc = u;
	}
#endif
	if (uc)
		return unw_init_local2(cur, (unw_context_t *)(uintptr_t)uc,
				       UNW_INIT_SIGNAL_FRAME) < 0 ? -1 : 0;
	if (unw_getcontext(ctx) || unw_init_local(cur, ctx) < 0)
		return -1;
	/* up to the probe site's function: our frames are not the application's */
	for (int skip = 0;; skip++) {
		if (unw_get_reg(cur, UNW_REG_IP, &ip) < 0 || skip == MAX_SKIP)
			return -1;
		if (ip == site_pc)
			return 0;
		if (unw_step(cur) <= 0)
			return -1;
	}
}

/* The return addresses from cur on, at most n (pcs NULL: counted only). */
static uint32_t walk(unw_cursor_t *cur, uint64_t *pcs, uint32_t n)
{
	unw_word_t ip = 0;
	uint32_t i = 0;

	while (i < n) {
		if (unw_get_reg(cur, UNW_REG_IP, &ip) < 0 || !ip)
			break;
		if (pcs)
			pcs[i] = ip;
		i++;
		if (unw_step(cur) <= 0)
			break;
	}
	return i;
}

void udt__ustack(uint64_t *pcs, uint32_t n, uint64_t site_pc)
{
	unw_context_t ctx;
	unw_cursor_t cur;
	struct xstate xs;

	memset(pcs, 0, (size_t)n * 8);
	if (!xstate_save(&xs))
		return;
	if (!first_frame(&cur, &ctx, site_pc))
		(void)walk(&cur, pcs, n);
	xstate_restore(&xs);
}

/*
 * uregs[r] at the fire: from the profile signal's context, every register;
 * at a probe site, those its call leaves as they were (the stack and frame
 * pointers, the callee-saved registers, the PC: the site's return address),
 * recovered by the unwinder; the others, which the call itself changes, 0.
 */
static uint64_t ureg(unw_cursor_t *cur, uint32_t r, uint64_t site)
{
	const void *uc = udt__prof_uc;
	unw_word_t v = 0;
	int reg = -1;

#if defined(__x86_64__)
	if (udt__site_gpr) {
		/* a trampolined SystemTap site: its registers as the trampoline saved them */
		static const int8_t gpr[UDT_UREG_CNT] = {
			[UDT_UREG_R15] = 16, [UDT_UREG_R14] = 15, [UDT_UREG_R13] = 14,
			[UDT_UREG_R12] = 13, [UDT_UREG_RBP] = 6, [UDT_UREG_RBX] = 4,
			[UDT_UREG_R11] = 12, [UDT_UREG_R10] = 11, [UDT_UREG_R9] = 10,
			[UDT_UREG_R8] = 9, [UDT_UREG_RAX] = 1, [UDT_UREG_RCX] = 2,
			[UDT_UREG_RDX] = 3, [UDT_UREG_RSI] = 7, [UDT_UREG_RDI] = 8,
			[UDT_UREG_RSP] = 5, [UDT_UREG_RFL] = 17,
		};
		/* (index + 1 into the frame: rax... r15, then the flags; 0 none) */
		if (r == UDT_UREG_RIP)
			return site;
		return gpr[r] ? udt__site_gpr[gpr[r] - 1] : 0;
	}
	if (uc) {
		/* glibc's gregs[] for each of D's registers */
		static const int8_t greg[UDT_UREG_CNT] = {
			[UDT_UREG_R15] = REG_R15, [UDT_UREG_R14] = REG_R14, [UDT_UREG_R13] = REG_R13,
			[UDT_UREG_R12] = REG_R12, [UDT_UREG_RBP] = REG_RBP, [UDT_UREG_RBX] = REG_RBX,
			[UDT_UREG_R11] = REG_R11, [UDT_UREG_R10] = REG_R10, [UDT_UREG_R9] = REG_R9,
			[UDT_UREG_R8] = REG_R8, [UDT_UREG_RAX] = REG_RAX, [UDT_UREG_RCX] = REG_RCX,
			[UDT_UREG_RDX] = REG_RDX, [UDT_UREG_RSI] = REG_RSI, [UDT_UREG_RDI] = REG_RDI,
			[UDT_UREG_ERR] = REG_ERR, [UDT_UREG_RIP] = REG_RIP, [UDT_UREG_CS] = -1,
			[UDT_UREG_RFL] = REG_EFL, [UDT_UREG_RSP] = REG_RSP, [UDT_UREG_SS] = -1,
			[UDT_UREG_DS] = -1, [UDT_UREG_ES] = -1, [UDT_UREG_FS] = -1, [UDT_UREG_GS] = -1,
			[UDT_UREG_TRAPNO] = REG_TRAPNO,
		};
		const ucontext_t *u = uc;
		if (r == UDT_UREG_CS || r == UDT_UREG_SS || (r >= UDT_UREG_DS && r <= UDT_UREG_GS)) {
			/* (csgsfs: cs, gs, fs, ss in 16 bits each) */
			uint64_t s = (uint64_t)u->uc_mcontext.gregs[REG_CSGSFS];
			return r == UDT_UREG_CS ? s & 0xffff : r == UDT_UREG_GS ? (s >> 16) & 0xffff
			       : r == UDT_UREG_FS ? (s >> 32) & 0xffff : r == UDT_UREG_SS ? s >> 48 : 0;
		}
		return (uint64_t)u->uc_mcontext.gregs[greg[r]];
	}
	switch (r) {
	case UDT_UREG_R15: reg = UNW_X86_64_R15; break;
	case UDT_UREG_R14: reg = UNW_X86_64_R14; break;
	case UDT_UREG_R13: reg = UNW_X86_64_R13; break;
	case UDT_UREG_R12: reg = UNW_X86_64_R12; break;
	case UDT_UREG_RBP: reg = UNW_X86_64_RBP; break;
	case UDT_UREG_RBX: reg = UNW_X86_64_RBX; break;
	case UDT_UREG_RIP: reg = UNW_REG_IP; break;
	case UDT_UREG_RSP: reg = UNW_REG_SP; break;
	default: break;
	}
#elif defined(__aarch64__)
	if (uc) {
		const ucontext_t *u = uc;
		return r < UDT_UREG_SP ? u->uc_mcontext.regs[r] : r == UDT_UREG_SP ? u->uc_mcontext.sp
		       : r == UDT_UREG_PC ? u->uc_mcontext.pc : u->uc_mcontext.pstate;
	}
	if (r >= 19 && r <= 30)
		reg = UNW_AARCH64_X0 + (int)r;
	else if (r == UDT_UREG_SP)
		reg = UNW_REG_SP;
	else if (r == UDT_UREG_PC)
		reg = UNW_REG_IP;
#endif
	if (reg < 0 || unw_get_reg(cur, reg, &v) < 0)
		return 0;
	return v;
}

uint32_t udt__site_subr(uint64_t site, uint32_t which, uint64_t arg, uint64_t *ret)
{
	unw_context_t ctx;
	unw_cursor_t cur;
	uint64_t pcs[2];
	struct xstate xs;

	if (which == UDT_SUBR_UREGS && arg >= UDT_UREG_CNT)
		return UDT_FAULT_ILLOP_ARG; /* (DTrace's illegal operation) */
	*ret = 0;
	if (!xstate_save(&xs))
		return 0;
	if (first_frame(&cur, &ctx, site)) {
		xstate_restore(&xs);
		return 0;
	}
	switch (which) {
	case UDT_SUBR_UCALLER:
		/* the frame after the probe's function's */
		if (walk(&cur, pcs, 2) == 2)
			*ret = pcs[1];
		break;
	case UDT_SUBR_USTACKDEPTH:
		*ret = walk(&cur, NULL, UDT_USTACK_MAX);
		break;
	case UDT_SUBR_UREGS:
		*ret = ureg(&cur, (uint32_t)arg, site);
		break;
	default:
		break;
	}
	xstate_restore(&xs);
	return 0;
}
