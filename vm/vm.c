/* SPDX-License-Identifier: MIT */
/*
 * The bytecode verifier and interpreter: udt_difo_verify() checks a DIFO
 * once, udt_difo_run() runs it at every fire (abi/bytecode.h,
 * docs/bytecode.md).
 *
 * Mechanism. A DIFO is one contiguous block:
 *
 *	struct udt_difo | struct udt_insn[insn_cnt] | uint64_t[const_cnt] | char[str_sz]
 *
 * with the instructions at offset d->size (the header is append-only: a
 * newer, larger header moves the body, never the other way round). The
 * verifier is a single pass over the instructions; the interpreter is a
 * switch in a loop over sixteen 64-bit registers, all zero on entry, kept
 * on the stack.
 *
 * Invariants the verifier establishes, which the interpreter relies on
 * without checking again (docs/bytecode.md §4 has the full list):
 *  - the block is 8-byte aligned and exactly sz bytes, header included, so
 *    the instructions and the constants are naturally aligned and every
 *    section is inside the block;
 *  - every register field an opcode uses is below UDT_DIFO_REGS; fields it
 *    does not use are ignored, and the interpreter never reads them;
 *  - constant, string, argument and variable indexes are in range; the
 *    string table ends in NUL, so every string index names a NUL-terminated
 *    string inside the DIFO;
 *  - branches go strictly forward to an existing instruction and the last
 *    instruction is RET, so every run ends, in at most insn_cnt steps, with
 *    a RET or a fault. There are no loops to bound.
 *
 * What can go wrong at run time is the program's arithmetic and its
 * loads, and both are faults, never crashes: division by zero
 * (UDT_FAULT_DIVZERO), LDARGR past the probe's arguments (UDT_FAULT_BADARG),
 * and a load from an address that cannot be read (UDT_FAULT_BADADDR, through
 * udt__safe_copy(): a load whose fault is recovered, or the kernel's copy). Arithmetic is done
 * in uint64_t, so it wraps and has no undefined behaviour: the two signed
 * cases C leaves undefined (INT64_MIN / -1 and INT64_MIN % -1) are defined
 * here as INT64_MIN and 0, and shifts count modulo 64.
 *
 * The interpreter runs on the probe path, possibly in a signal handler: it
 * allocates nothing, takes no lock, uses no stdio, and leaves errno as it
 * found it. Its only system calls are those of loads (safe.c) and
 * clock_gettime (walltimestamp, vtimestamp), the latter through the vDSO
 * where the kernel provides it.
 *
 * An unverified DIFO must never be run: a register field of 200 would
 * index past the register file, a constant index past the block. The only
 * check the interpreter keeps is its loop bound and an ILLOP for an unknown
 * opcode, which cost nothing.
 */
#include "abi/bytecode.h"
#include "vm/safe.h"
#include "vm/subr.h"
#include "vm/vm_mem.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define DIFO_ALIGN 8

/* Which fields an opcode uses (docs/bytecode.md §3). */
#define USE_RD 0x01u
#define USE_RS1 0x02u
#define USE_RS2 0x04u

static const uint8_t op_regs[UDT_OP_CNT] = {
	[UDT_OP_NOP] = 0,
	[UDT_OP_RET] = USE_RS1,
	[UDT_OP_MOV] = USE_RD | USE_RS1,
	[UDT_OP_LDI] = USE_RD,
	[UDT_OP_LDC] = USE_RD,
	[UDT_OP_LDS] = USE_RD,
	[UDT_OP_ADD] = USE_RD | USE_RS1 | USE_RS2,
	[UDT_OP_SUB] = USE_RD | USE_RS1 | USE_RS2,
	[UDT_OP_MUL] = USE_RD | USE_RS1 | USE_RS2,
	[UDT_OP_UDIV] = USE_RD | USE_RS1 | USE_RS2,
	[UDT_OP_SDIV] = USE_RD | USE_RS1 | USE_RS2,
	[UDT_OP_UREM] = USE_RD | USE_RS1 | USE_RS2,
	[UDT_OP_SREM] = USE_RD | USE_RS1 | USE_RS2,
	[UDT_OP_AND] = USE_RD | USE_RS1 | USE_RS2,
	[UDT_OP_OR] = USE_RD | USE_RS1 | USE_RS2,
	[UDT_OP_XOR] = USE_RD | USE_RS1 | USE_RS2,
	[UDT_OP_SLL] = USE_RD | USE_RS1 | USE_RS2,
	[UDT_OP_SRL] = USE_RD | USE_RS1 | USE_RS2,
	[UDT_OP_SRA] = USE_RD | USE_RS1 | USE_RS2,
	[UDT_OP_NEG] = USE_RD | USE_RS1,
	[UDT_OP_NOT] = USE_RD | USE_RS1,
	[UDT_OP_LNOT] = USE_RD | USE_RS1,
	[UDT_OP_SEQ] = USE_RD | USE_RS1 | USE_RS2,
	[UDT_OP_SNE] = USE_RD | USE_RS1 | USE_RS2,
	[UDT_OP_SLT] = USE_RD | USE_RS1 | USE_RS2,
	[UDT_OP_SLTU] = USE_RD | USE_RS1 | USE_RS2,
	[UDT_OP_SLE] = USE_RD | USE_RS1 | USE_RS2,
	[UDT_OP_SLEU] = USE_RD | USE_RS1 | USE_RS2,
	[UDT_OP_SEXT] = USE_RD | USE_RS1,
	[UDT_OP_ZEXT] = USE_RD | USE_RS1,
	[UDT_OP_BA] = 0,
	[UDT_OP_BZ] = USE_RS1,
	[UDT_OP_BNZ] = USE_RS1,
	[UDT_OP_LDARG] = USE_RD,
	[UDT_OP_LDARGR] = USE_RD | USE_RS1,
	[UDT_OP_LDVAR] = USE_RD,
	[UDT_OP_LDX8] = USE_RD | USE_RS1,
	[UDT_OP_LDX16] = USE_RD | USE_RS1,
	[UDT_OP_LDX32] = USE_RD | USE_RS1,
	[UDT_OP_LDX64] = USE_RD | USE_RS1,
	[UDT_OP_LDX8S] = USE_RD | USE_RS1,
	[UDT_OP_LDX16S] = USE_RD | USE_RS1,
	[UDT_OP_LDX32S] = USE_RD | USE_RS1,
	[UDT_OP_LDTV] = USE_RD,
	[UDT_OP_STTV] = USE_RS1,
	[UDT_OP_LDLV] = USE_RD,
	[UDT_OP_STLV] = USE_RS1,
	[UDT_OP_LDGV] = USE_RD,
	[UDT_OP_STGV] = USE_RS1,
	[UDT_OP_STRCMP] = USE_RD | USE_RS1 | USE_RS2,
	[UDT_OP_SUBR] = USE_RD | USE_RS1 | USE_RS2,
	/* CALL, LDDV and STDV name a range of registers: checked in insn_ok() */
	[UDT_OP_CALL] = USE_RD,
	[UDT_OP_LDTS] = USE_RD,
	[UDT_OP_STTS] = USE_RS1,
	[UDT_OP_LDLS] = USE_RD,
	[UDT_OP_STLS] = USE_RS1,
	[UDT_OP_LDGS] = USE_RD,
	[UDT_OP_STGS] = USE_RS1,
	[UDT_OP_LDDV] = USE_RD,
	[UDT_OP_STDV] = USE_RD,
	[UDT_OP_LDTA] = USE_RD,
	[UDT_OP_LDLA] = USE_RD,
	[UDT_OP_LDGA] = USE_RD,
	[UDT_OP_STX8] = USE_RS1 | USE_RS2,
	[UDT_OP_STX16] = USE_RS1 | USE_RS2,
	[UDT_OP_STX32] = USE_RS1 | USE_RS2,
	[UDT_OP_STX64] = USE_RS1 | USE_RS2,
};

static int reject(uint32_t *ret_insn, uint32_t insn)
{
	if (ret_insn)
		*ret_insn = insn;
	return -EINVAL;
}

/* Is imm in [lo, hi)? Compared as int64_t so that negative imm are out. */
static bool in_range(int32_t imm, int64_t lo, int64_t hi)
{
	return imm >= lo && imm < hi;
}

static bool insn_ok(const struct udt_difo *d, const struct udt_insn *in, uint32_t pc,
		    unsigned nregs)
{
	uint8_t use = op_regs[in->op];

	if (((use & USE_RD) && in->rd >= nregs) || ((use & USE_RS1) && in->rs1 >= nregs) ||
	    ((use & USE_RS2) && in->rs2 >= nregs))
		return false;

	switch (in->op) {
	case UDT_OP_LDC:
		return in_range(in->imm, 0, d->const_cnt);
	case UDT_OP_LDS:
		return in_range(in->imm, 0, d->str_sz);
	case UDT_OP_LDARG:
		return in_range(in->imm, 0, UDT_DIFO_MAX_ARGS);
	case UDT_OP_LDVAR:
		return in_range(in->imm, 0, UDT_VAR_CNT);
	case UDT_OP_SEXT:
	case UDT_OP_ZEXT:
		return in_range(in->imm, 1, 65);
	case UDT_OP_SUBR:
		return in_range(in->imm, 0, UDT_SUBR_CNT);
	case UDT_OP_LDTV:
	case UDT_OP_STTV:
	case UDT_OP_LDLV:
	case UDT_OP_STLV:
	case UDT_OP_LDGV:
	case UDT_OP_STGV:
	case UDT_OP_LDTS:
	case UDT_OP_STTS:
	case UDT_OP_LDLS:
	case UDT_OP_STLS:
	case UDT_OP_LDGS:
	case UDT_OP_STGS:
	case UDT_OP_LDTA:
	case UDT_OP_LDLA:
	case UDT_OP_LDGA:
		/* how many the session has is checked when it runs */
		return in->imm >= 0;
	case UDT_OP_CALL: {
		/* a known subroutine, with as many arguments as it takes, in registers */
		uint32_t min, max;
		if (!in_range(in->imm, 0, UDT_CALL_CNT))
			return false;
		udt__vm_call_args((uint32_t)in->imm, &min, &max);
		return in->rs2 >= min && in->rs2 <= max && (uint32_t)in->rs1 + in->rs2 <= nregs;
	}
	case UDT_OP_LDDV:
	case UDT_OP_STDV: {
		/* 1 to UDT_DV_MAX_KEYS keys in registers (and a value's size after them); only
		   known flags, and not a string and bytes at once */
		uint32_t f = (uint32_t)in->imm;
		bool ref = f & UDT_DV_REFVAL;
		return in->rs2 >= 1 && in->rs2 <= UDT_DV_MAX_KEYS &&
		       (uint32_t)in->rs1 + in->rs2 + (ref && in->op == UDT_OP_STDV) <= nregs &&
		       in->imm >= 0 && !(ref && (f & UDT_DV_STRVAL)) &&
		       !(f & ~(UDT_DV_ID_MASK | UDT_DV_THREAD | UDT_DV_STRVAL | UDT_DV_REFVAL |
			       (((1u << UDT_DV_MAX_KEYS) - 1) << UDT_DV_STRKEYS_SHIFT)));
	}
	case UDT_OP_BA:
	case UDT_OP_BZ:
	case UDT_OP_BNZ:
		/* strictly forward: this is what makes every DIFO end */
		return in_range(in->imm, (int64_t)pc + 1, d->insn_cnt);
	default:
		return true;
	}
}

bool udt_difo_is_light(const struct udt_difo *d)
{
	const struct udt_insn *in = (const void *)((const uint8_t *)d + d->size);

	for (uint32_t i = 0; i < d->insn_cnt; i++) {
		switch (in[i].op) {
		case UDT_OP_NOP: case UDT_OP_RET: case UDT_OP_MOV: case UDT_OP_LDI:
		case UDT_OP_LDC: case UDT_OP_LDS: case UDT_OP_ADD: case UDT_OP_SUB:
		case UDT_OP_MUL: case UDT_OP_UDIV: case UDT_OP_SDIV: case UDT_OP_UREM:
		case UDT_OP_SREM: case UDT_OP_AND: case UDT_OP_OR: case UDT_OP_XOR:
		case UDT_OP_SLL: case UDT_OP_SRL: case UDT_OP_SRA: case UDT_OP_NEG:
		case UDT_OP_NOT: case UDT_OP_LNOT: case UDT_OP_SEQ: case UDT_OP_SNE:
		case UDT_OP_SLT: case UDT_OP_SLTU: case UDT_OP_SLE: case UDT_OP_SLEU:
		case UDT_OP_SEXT: case UDT_OP_ZEXT: case UDT_OP_BA: case UDT_OP_BZ:
		case UDT_OP_BNZ: case UDT_OP_LDARG: case UDT_OP_LDARGR:
		case UDT_OP_LDTV: case UDT_OP_LDGV:
			continue;
		case UDT_OP_LDVAR:
			/* (curlwpsinfo needs the fire's buffer: the whole context) */
			if (in[i].imm == UDT_VAR_CURLWPSINFO)
				return false;
			continue;
		default:
			return false;
		}
	}
	return true;
}

int udt_difo_verify(const struct udt_difo *d, size_t sz, uint32_t *ret_insn)
{
	const struct udt_insn *insns;
	const char *strtab;
	uint64_t total;

	if (!d || (uintptr_t)d % DIFO_ALIGN || sz < sizeof(*d))
		return reject(ret_insn, 0);
	/* a header we know all of, padded so the body stays aligned */
	if (d->size < sizeof(*d) || d->size % DIFO_ALIGN)
		return reject(ret_insn, 0);
	if (d->insn_cnt == 0 || d->insn_cnt > UDT_DIFO_MAX_INSNS)
		return reject(ret_insn, 0);
	/* each term is below 2^35: the sum cannot overflow 64 bits */
	total = (uint64_t)d->size + (uint64_t)d->insn_cnt * sizeof(struct udt_insn) +
		(uint64_t)d->const_cnt * sizeof(uint64_t) + (uint64_t)d->str_sz;
	if (total != (uint64_t)sz)
		return reject(ret_insn, 0);

	insns = (const struct udt_insn *)((const char *)d + d->size);
	strtab = (const char *)(insns + d->insn_cnt) + (size_t)d->const_cnt * sizeof(uint64_t);
	if (d->str_sz && strtab[d->str_sz - 1] != '\0')
		return reject(ret_insn, 0);

	/* a DIFO that names its register count uses no register beyond it */
	if (d->nregs > UDT_DIFO_REGS)
		return reject(ret_insn, 0);
	unsigned nregs = d->nregs ? d->nregs : UDT_DIFO_REGS;
	for (uint32_t pc = 0; pc < d->insn_cnt; pc++) {
		const struct udt_insn *in = &insns[pc];

		if (in->op >= UDT_OP_CNT || !insn_ok(d, in, pc, nregs))
			return reject(ret_insn, pc);
	}
	/*
	 * Only the last instruction can lead past the end: a branch there would
	 * have to go forward out of the DIFO, so it must be a RET.
	 */
	if (insns[d->insn_cnt - 1].op != UDT_OP_RET)
		return reject(ret_insn, d->insn_cnt - 1);
	return 0;
}

/* A clock in ns, or 0 if it cannot be read; errno is left as it was. */
static uint64_t clock_ns(clockid_t id)
{
	int saved_errno = errno;
	struct timespec ts;
	uint64_t ns = 0;

	if (!clock_gettime(id, &ts))
		ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	errno = saved_errno;
	return ns;
}

uint64_t udt_vm_var(const struct udt_vm_ctx *ctx, uint32_t id)
{
	switch (id) {
	case UDT_VAR_TIMESTAMP:
		return ctx->timestamp;
	case UDT_VAR_WALLTIMESTAMP:
		return clock_ns(CLOCK_REALTIME);
	case UDT_VAR_VTIMESTAMP:
		return clock_ns(CLOCK_THREAD_CPUTIME_ID);
	case UDT_VAR_PID:
		return (uint64_t)(int64_t)ctx->pid;
	case UDT_VAR_TID:
		return (uint64_t)(int64_t)ctx->tid;
	case UDT_VAR_CPU:
		return ctx->cpu;
	case UDT_VAR_EPID:
		return ctx->epid;
	case UDT_VAR_ERRNO:
		return (uint64_t)(int64_t)ctx->err;
	case UDT_VAR_NARGS:
		return ctx->nargs;
	case UDT_VAR_PPID:
		return (uint64_t)(int64_t)getppid();
	case UDT_VAR_UID:
		return getuid();
	case UDT_VAR_GID:
		return getgid();
	case UDT_VAR_CURPSINFO:
		return udt_vm_curpsinfo(ctx->pid, ctx->tid, ctx->cpu, ctx->timestamp);
	case UDT_VAR_CURLWPSINFO:
		return udt_vm_curlwpsinfo(ctx->lwp, ctx->tid, ctx->cpu);
	default:
		return 0; /* not reached: the verifier checked id */
	}
}

/* Sign-extend v from its low bits (1..64), without implementation-defined shifts. */
static uint64_t sext(uint64_t v, unsigned bits)
{
	uint64_t sign;

	if (bits >= 64)
		return v;
	sign = (uint64_t)1 << (bits - 1);
	v &= (sign << 1) - 1;
	return (v ^ sign) - sign;
}

static uint64_t zext(uint64_t v, unsigned bits)
{
	return bits >= 64 ? v : v & (((uint64_t)1 << bits) - 1);
}

/* Arithmetic shift right by 0..63, defined for negative values too. */
static uint64_t sra(uint64_t v, unsigned n)
{
	return v >> 63 ? ~(~v >> n) : v >> n;
}

/*
 * LDX's n bytes at addr into dst: the runtime's own memory (a struct
 * variable's bytes, alloca()'s, the thread's and the session's areas) in
 * place, the process's fault-safe (which costs the fire's first load its
 * system calls: safe.c). Nonzero when addr cannot be read.
 */
static inline __attribute__((always_inline)) int load_x(const struct udt_vm_ctx *ctx, void *dst,
							 uint64_t addr, unsigned n)
{
	if (ctx->mem && udt__vm_owned(ctx->mem, addr, n)) {
		memcpy(dst, (const void *)(uintptr_t)addr, n);
		return 0;
	}
	return udt__safe_copy(dst, addr, n);
}

static int fault(struct udt_vm_ctx *ctx, uint32_t why, uint32_t pc, uint64_t addr)
{
	ctx->fault = why;
	ctx->fault_insn = pc;
	ctx->fault_addr = addr;
	return -1;
}

int udt_difo_shape(const struct udt_difo *d, struct udt_shape *ret)
{
	const struct udt_insn *in = (const struct udt_insn *)((const char *)d + d->size);
	const uint64_t *consts = (const uint64_t *)(in + d->insn_cnt);
	uint32_t n = d->insn_cnt, i = 1, ra = in[0].rd, res = in[0].rd;
	struct udt_shape s = { 0 };

	*ret = s;
	if (n < 2 || n > 5)
		return 0;
	switch (in[0].op) {
	case UDT_OP_LDARG:
	case UDT_OP_LDVAR:
	case UDT_OP_LDTV:
	case UDT_OP_LDGV:
		s.load = in[0].op;
		s.imm = (uint32_t)in[0].imm;
		break;
	default:
		return 0;
	}
	if ((in[i].op == UDT_OP_SEXT || in[i].op == UDT_OP_ZEXT) && in[i].rd == ra &&
	    in[i].rs1 == ra) {
		s.ext = in[i].op;
		s.ext_bits = (uint8_t)in[i].imm;
		i++;
	}
	if (i + 2 < n) {
		/* the constant in another register, then the compare of the two into res */
		uint32_t rb = in[i].rd;
		const struct udt_insn *c = &in[i + 1];

		if (rb == ra || (in[i].op != UDT_OP_LDI && in[i].op != UDT_OP_LDC))
			return 0;
		s.k = in[i].op == UDT_OP_LDI ? (uint64_t)(int64_t)in[i].imm : consts[in[i].imm];
		if (c->rs1 == rb && c->rs2 == ra)
			s.swap = 1;
		else if (c->rs1 != ra || c->rs2 != rb)
			return 0;
		switch (c->op) {
		case UDT_OP_SEQ: case UDT_OP_SNE: case UDT_OP_SLT:
		case UDT_OP_SLTU: case UDT_OP_SLE: case UDT_OP_SLEU:
			s.cmp = c->op;
			break;
		default:
			return 0;
		}
		res = c->rd;
		i += 2;
	}
	if (i != n - 1 || in[i].op != UDT_OP_RET || in[i].rs1 != res)
		return 0;
	*ret = s;
	return 1;
}

int udt_difo_run_shape(const struct udt_difo *d, const struct udt_vm_ctx *ctx, uint64_t *ret_val)
{
	struct udt_shape s;

	return udt_difo_shape(d, &s) && udt_shape_run(&s, ctx, ret_val);
}

int udt_difo_run(const struct udt_difo *d, struct udt_vm_ctx *ctx, uint64_t *ret_val)
{
	const struct udt_insn *insns = (const struct udt_insn *)((const char *)d + d->size);
	const uint32_t cnt = d->insn_cnt;
	const uint64_t *consts = (const uint64_t *)(insns + cnt);
	const char *strtab = (const char *)(consts + d->const_cnt);
	uint64_t r[UDT_DIFO_REGS];
	unsigned nregs = d->nregs ? d->nregs : UDT_DIFO_REGS;

	/* zero only the registers the DIFO uses (clearing all 16 was half of a short one's cost) */
	for (unsigned i = 0; i < nregs; i++)
		r[i] = 0;
	uint32_t pc = 0;

	while (pc < cnt) {
		const struct udt_insn *in = &insns[pc];
		uint64_t a, b, addr;
		union {
			uint8_t u8;
			uint16_t u16;
			uint32_t u32;
			uint64_t u64;
		} m;

/* Registers the opcode uses; the verifier checked those fields only. */
#define RD r[in->rd]
#define RS1 r[in->rs1]
#define RS2 r[in->rs2]
		switch (in->op) {
		case UDT_OP_NOP:
			break;
		case UDT_OP_RET:
			*ret_val = RS1;
			return 0;
		case UDT_OP_MOV:
			RD = RS1;
			break;
		case UDT_OP_LDI:
			RD = (uint64_t)(int64_t)in->imm;
			break;
		case UDT_OP_LDC:
			RD = consts[in->imm];
			break;
		case UDT_OP_LDS:
			RD = (uint64_t)(uintptr_t)(strtab + in->imm);
			break;
		case UDT_OP_ADD:
			RD = RS1 + RS2;
			break;
		case UDT_OP_SUB:
			RD = RS1 - RS2;
			break;
		case UDT_OP_MUL:
			RD = RS1 * RS2;
			break;
		case UDT_OP_UDIV:
		case UDT_OP_UREM:
			a = RS1;
			b = RS2;
			if (!b)
				return fault(ctx, UDT_FAULT_DIVZERO, pc, 0);
			RD = in->op == UDT_OP_UDIV ? a / b : a % b;
			break;
		case UDT_OP_SDIV:
		case UDT_OP_SREM:
			a = RS1;
			b = RS2;
			if (!b)
				return fault(ctx, UDT_FAULT_DIVZERO, pc, 0);
			if (a == (uint64_t)INT64_MIN && b == UINT64_MAX)
				/* the one overflowing case, undefined in C: wrap */
				RD = in->op == UDT_OP_SDIV ? a : 0;
			else if (in->op == UDT_OP_SDIV)
				RD = (uint64_t)((int64_t)a / (int64_t)b);
			else
				RD = (uint64_t)((int64_t)a % (int64_t)b);
			break;
		case UDT_OP_AND:
			RD = RS1 & RS2;
			break;
		case UDT_OP_OR:
			RD = RS1 | RS2;
			break;
		case UDT_OP_XOR:
			RD = RS1 ^ RS2;
			break;
		case UDT_OP_SLL:
			RD = RS1 << (RS2 & 63);
			break;
		case UDT_OP_SRL:
			RD = RS1 >> (RS2 & 63);
			break;
		case UDT_OP_SRA:
			RD = sra(RS1, (unsigned)(RS2 & 63));
			break;
		case UDT_OP_NEG:
			RD = 0 - RS1;
			break;
		case UDT_OP_NOT:
			RD = ~RS1;
			break;
		case UDT_OP_LNOT:
			RD = !RS1;
			break;
		case UDT_OP_SEQ:
			RD = RS1 == RS2;
			break;
		case UDT_OP_SNE:
			RD = RS1 != RS2;
			break;
		case UDT_OP_SLT:
			RD = (int64_t)RS1 < (int64_t)RS2;
			break;
		case UDT_OP_SLTU:
			RD = RS1 < RS2;
			break;
		case UDT_OP_SLE:
			RD = (int64_t)RS1 <= (int64_t)RS2;
			break;
		case UDT_OP_SLEU:
			RD = RS1 <= RS2;
			break;
		case UDT_OP_SEXT:
			RD = sext(RS1, (unsigned)in->imm);
			break;
		case UDT_OP_ZEXT:
			RD = zext(RS1, (unsigned)in->imm);
			break;
		case UDT_OP_BA:
			pc = (uint32_t)in->imm;
			continue;
		case UDT_OP_BZ:
			if (!RS1) {
				pc = (uint32_t)in->imm;
				continue;
			}
			break;
		case UDT_OP_BNZ:
			if (RS1) {
				pc = (uint32_t)in->imm;
				continue;
			}
			break;
		case UDT_OP_LDARG:
			/* DTrace's args past the probe's count read as 0 */
			RD = (uint32_t)in->imm < ctx->nargs ? ctx->args[in->imm] : 0;
			break;
		case UDT_OP_LDARGR:
			a = RS1;
			if (a >= ctx->nargs)
				return fault(ctx, UDT_FAULT_BADARG, pc, 0);
			RD = ctx->args[a];
			break;
		case UDT_OP_LDVAR:
			RD = udt_vm_var(ctx, (uint32_t)in->imm);
			break;
		case UDT_OP_LDTV:
			if ((uint32_t)in->imm >= ctx->ntvars)
				return fault(ctx, UDT_FAULT_BADVAR, pc, 0);
			RD = ctx->tvars[in->imm];
			break;
		case UDT_OP_STTV:
			if ((uint32_t)in->imm >= ctx->ntvars)
				return fault(ctx, UDT_FAULT_BADVAR, pc, 0);
			ctx->tvars[in->imm] = RS1;
			break;
		case UDT_OP_LDLV:
			if ((uint32_t)in->imm >= ctx->nlocals)
				return fault(ctx, UDT_FAULT_BADVAR, pc, 0);
			RD = ctx->locals[in->imm];
			break;
		case UDT_OP_STLV:
			if ((uint32_t)in->imm >= ctx->nlocals)
				return fault(ctx, UDT_FAULT_BADVAR, pc, 0);
			ctx->locals[in->imm] = RS1;
			break;
		case UDT_OP_STRCMP: {
			int c;
			uint64_t ma = (uint32_t)in->imm & 0xffff, mb = (uint32_t)in->imm >> 16;
			uint32_t f = udt__vm_strcmp(ctx, d, RS1, RS2, ma ? ma : UDT_STRCMP_MAX,
						    mb ? mb : UDT_STRCMP_MAX, &c, &addr);
			if (f)
				return fault(ctx, f, pc, addr);
			RD = (uint64_t)(int64_t)c;
			break;
		}
		case UDT_OP_SUBR: {
			uint64_t v = 0;
			int f = udt__subr(ctx, (uint32_t)in->imm, RS1, RS2, &v);
			if (f)
				return fault(ctx, (uint32_t)f, pc, 0);
			RD = v;
			break;
		}
		case UDT_OP_CALL: {
			uint64_t v = 0;
			uint32_t f = udt__vm_call(ctx, d, (uint32_t)in->imm, &r[in->rs1], in->rs2, &v,
						  &addr);
			if (f)
				return fault(ctx, f, pc, addr);
			RD = v;
			break;
		}
		case UDT_OP_LDTS:
		case UDT_OP_LDLS:
		case UDT_OP_LDGS:
		case UDT_OP_STTS:
		case UDT_OP_STLS:
		case UDT_OP_STGS: {
			bool ld = in->op == UDT_OP_LDTS || in->op == UDT_OP_LDLS || in->op == UDT_OP_LDGS;
			uint64_t v = ld ? 0 : RS1;
			uint32_t f = udt__vm_strvar(ctx, d, in->op, (uint32_t)in->imm, &v, &addr);
			if (f)
				return fault(ctx, f, pc, addr);
			if (ld)
				RD = v;
			break;
		}
		case UDT_OP_LDDV:
		case UDT_OP_STDV: {
			uint64_t v = RD;
			bool bytes = in->op == UDT_OP_STDV && ((uint32_t)in->imm & UDT_DV_REFVAL);
			uint32_t f = udt__vm_dynvar(ctx, d, in->op == UDT_OP_STDV, (uint32_t)in->imm,
						    &r[in->rs1], in->rs2, &v,
						    bytes ? r[in->rs1 + in->rs2] : 0, &addr);
			if (f)
				return fault(ctx, f, pc, addr);
			if (in->op == UDT_OP_LDDV)
				RD = v;
			break;
		}
		case UDT_OP_LDGV:
			/* threads race on globals, as in DTrace: each access is one 8-byte word */
			if ((uint32_t)in->imm >= ctx->ngvars)
				return fault(ctx, UDT_FAULT_BADVAR, pc, 0);
			RD = __atomic_load_n(&ctx->gvars[in->imm], __ATOMIC_RELAXED);
			break;
		case UDT_OP_STGV:
			if ((uint32_t)in->imm >= ctx->ngvars)
				return fault(ctx, UDT_FAULT_BADVAR, pc, 0);
			__atomic_store_n(&ctx->gvars[in->imm], RS1, __ATOMIC_RELAXED);
			break;
		case UDT_OP_LDTA:
		case UDT_OP_LDLA:
		case UDT_OP_LDGA: {
			/* a variable's bytes: its string slot's (and those after it it takes) */
			const struct udt_vm_mem *vm = ctx->mem;
			uint8_t *base = !vm ? NULL : in->op == UDT_OP_LDTA ? vm->tstrs
					: in->op == UDT_OP_LDLA ? vm->lstrs : vm->gstrs;
			uint32_t n = !vm ? 0 : in->op == UDT_OP_LDTA ? vm->ntstrs
				     : in->op == UDT_OP_LDLA ? vm->nlstrs : vm->ngstrs;
			if ((uint32_t)in->imm >= n)
				return fault(ctx, UDT_FAULT_BADVAR, pc, 0);
			RD = (uint64_t)(uintptr_t)(base + (uint64_t)(uint32_t)in->imm * vm->slot_sz + 8);
			break;
		}
		case UDT_OP_STX8:
		case UDT_OP_STX16:
		case UDT_OP_STX32:
		case UDT_OP_STX64: {
			unsigned n = 1u << (in->op - UDT_OP_STX8);
			addr = RS1 + (uint64_t)(int64_t)in->imm;
			if (!ctx->mem || !udt__vm_writable(ctx->mem, addr, n))
				return fault(ctx, UDT_FAULT_BADADDR, pc, addr);
			m.u64 = RS2;
			/* (little-endian: the value's low bytes first; big-endian: its last; each
			   size a copy of its own, which the compiler makes one store) */
			const uint8_t *src = (const uint8_t *)&m.u64 +
					     (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ? 8 - n : 0);
			void *dst = (void *)(uintptr_t)addr;
			if (n == 8)
				memcpy(dst, src, 8);
			else if (n == 4)
				memcpy(dst, src, 4);
			else if (n == 2)
				memcpy(dst, src, 2);
			else
				memcpy(dst, src, 1);
			break;
		}
		case UDT_OP_LDX8:
		case UDT_OP_LDX8S:
			addr = RS1 + (uint64_t)(int64_t)in->imm;
			if (load_x(ctx, &m.u8, addr, 1))
				return fault(ctx, UDT_FAULT_BADADDR, pc, addr);
			RD = in->op == UDT_OP_LDX8S ? sext(m.u8, 8) : m.u8;
			break;
		case UDT_OP_LDX16:
		case UDT_OP_LDX16S:
			addr = RS1 + (uint64_t)(int64_t)in->imm;
			if (load_x(ctx, &m.u16, addr, 2))
				return fault(ctx, UDT_FAULT_BADADDR, pc, addr);
			RD = in->op == UDT_OP_LDX16S ? sext(m.u16, 16) : m.u16;
			break;
		case UDT_OP_LDX32:
		case UDT_OP_LDX32S:
			addr = RS1 + (uint64_t)(int64_t)in->imm;
			if (load_x(ctx, &m.u32, addr, 4))
				return fault(ctx, UDT_FAULT_BADADDR, pc, addr);
			RD = in->op == UDT_OP_LDX32S ? sext(m.u32, 32) : m.u32;
			break;
		case UDT_OP_LDX64:
			addr = RS1 + (uint64_t)(int64_t)in->imm;
			if (load_x(ctx, &m.u64, addr, 8))
				return fault(ctx, UDT_FAULT_BADADDR, pc, addr);
			RD = m.u64;
			break;
		default:
			return fault(ctx, UDT_FAULT_ILLOP, pc, 0);
		}
#undef RD
#undef RS1
#undef RS2
		pc++;
	}
	/* ran off the end: only an unverified DIFO can */
	return fault(ctx, UDT_FAULT_ILLOP, pc ? pc - 1 : 0, 0);
}
