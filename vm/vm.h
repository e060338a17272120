/* SPDX-License-Identifier: MIT */
/*
 * vm: the D machine. It owns the checking and running of the bytecode
 * (abi/bytecode.h, docs/bytecode.md) that dtrace compiles D into: the
 * verifier, the interpreter and its decoded shapes, the subroutines (subr.c, vm_str.c,
 * vm_net.c), and the data a running DIFO works in: string variables and
 * scratch, the dynamic variable space (vm_mem.h, dynvar.c), the aggregation
 * tables (agg.h), the speculations (spec.h), and the fault-safe loads it
 * reads any memory with (safe.h).
 *
 * It runs in two places: in the target, linked into libudtrace (runtime/),
 * at every fire; and in dtrace (consumer/), for BEGIN, END and tick-n. So
 * it knows nothing of either: no session, buffer, thread list, process or
 * D source. It includes only abi/ and the system's headers: never runtime/,
 * consumer/, proc/, output/, dlang/ or util/ (util/ is not in the target).
 * Everything here is async-signal-safe unless said otherwise.
 */
#ifndef UDT_VM_H
#define UDT_VM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "abi/bytecode.h"
#include "abi/psinfo.h"

struct udt_spectab;
struct udt_vm_mem;

/* What a running DIFO can see. */
struct udt_vm_ctx {
	const uint64_t *args;     /* native arguments */
	unsigned nargs;
	uint64_t timestamp;
	uint32_t epid;
	uint32_t cpu;
	int32_t pid, tid;
	int err;                  /* the application's errno */
	uint64_t *tvars;          /* the thread's variables (self->), ntvars of them */
	uint32_t ntvars;
	uint32_t nlocals;
	uint64_t *locals;         /* the fire's clause-local variables (this->), nlocals */
	uint64_t *gvars;          /* the session's global variables, ngvars (shared by threads) */
	uint32_t ngvars;
	const struct udt_spectab *spec; /* the session's speculations, or NULL (vm/spec.h) */
	uint64_t *rand;           /* rand()'s state: the thread's own (two words), or NULL */
	struct udt_vm_mem *mem;   /* strings, scratch, dynamic variables (vm_mem.h); NULL: none */
	/* set on a fault: */
	uint32_t fault;           /* enum udt_fault */
	uint32_t fault_insn;
	uint64_t fault_addr;
	/*
	 * The probe site's return address, where ucaller, ustackdepth and
	 * uregs[] read the user stack and registers (vm/subr.c); 0 in
	 * dtrace, where BEGIN and END have no site (they read 0).
	 */
	uint64_t site;
	/* curlwpsinfo's structure, the fire's own (filled at its first use); NULL: none
	   (curlwpsinfo is 0) */
	struct udt_vm_lwp *lwp;
};

struct udt_vm_lwp {
	struct udt_lwpsinfo l;
	bool filled;
};

/*
 * curpsinfo and curlwpsinfo (psinfo.c; docs/proc.md): the address of the
 * process's psinfo_t (one for its threads, at most 50 ms old by now, the
 * fire's CLOCK_MONOTONIC ns; its pr_lwp the filler's), and of the
 * fire's lwpsinfo_t l (NULL: 0) filled for thread tid (on cpu) if it is not yet; the
 * same structures filled for a process or thread a probe's arguments
 * describe (udt_vm_psinfo_of(): the calling process's facts, for pid).
 * Async-signal-safe.
 */
uint64_t udt_vm_curpsinfo(int32_t pid, int32_t tid, uint32_t cpu, uint64_t now);
uint64_t udt_vm_curlwpsinfo(struct udt_vm_lwp *l, int32_t tid, uint32_t cpu);
void udt_vm_psinfo_of(struct udt_psinfo *p, int32_t pid, int32_t tid, uint32_t cpu);
void udt_vm_lwpsinfo_of(struct udt_lwpsinfo *l, int32_t tid, uint32_t cpu);

/*
 * udt_difo_verify() - check that a DIFO of sz bytes at d is safe to run:
 * consistent sizes, known opcodes, registers below UDT_DIFO_REGS, constants,
 * strings, arguments and variables in range, forward branches only, and no
 * path that runs off the end without a RET.
 * Return: 0, or a negative errno (-EINVAL) with *ret_insn the offending index.
 * Async-signal-safe.
 */
int udt_difo_verify(const struct udt_difo *d, size_t sz, uint32_t *ret_insn);

/*
 * udt_difo_is_light() - does verified DIFO d use only opcodes that need the
 * arguments, the builtins and the thread's and session's scalar variables
 * (args, nargs, timestamp, epid, cpu, pid, tid, err, tvars, gvars of the
 * context) and nothing else: no load from memory, no clause-local variable,
 * no subroutine? An explicit list: an opcode added later is not light.
 */
bool udt_difo_is_light(const struct udt_difo *d);

/*
 * The shape most predicates compile to: one value (LDARG, LDVAR, LDTV or
 * LDGV), perhaps sign- or zero-extended, perhaps compared with a constant
 * (LDI or LDC, then SEQ SNE SLT SLTU SLE SLEU, either way round),
 * returned. udt_difo_shape() decodes it once; udt_shape_run() evaluates it
 * as udt_difo_run() would run the DIFO, without the interpreter.
 */
struct udt_shape {
	uint8_t load;             /* the UDT_OP_LD* of the value; 0: not of the shape */
	uint8_t ext;              /* UDT_OP_SEXT, UDT_OP_ZEXT, or 0 */
	uint8_t ext_bits;
	uint8_t cmp;              /* the UDT_OP_S* compare, or 0: the value is the result */
	uint8_t swap;             /* the constant is the compare's left operand */
	uint32_t imm;             /* the load's argument, variable or builtin */
	uint64_t k;               /* the constant */
};

/* Decode verified DIFO d: 1 with *ret filled if it has the shape, else 0 (ret->load 0). */
int udt_difo_shape(const struct udt_difo *d, struct udt_shape *ret);

/* Both at once (tests). */
int udt_difo_run_shape(const struct udt_difo *d, const struct udt_vm_ctx *ctx, uint64_t *ret_val);

/* The value of builtin variable id (enum udt_var) for ctx; 0 for an unknown id. Async-signal-safe. */
uint64_t udt_vm_var(const struct udt_vm_ctx *ctx, uint32_t id);

/*
 * udt_shape_run() - evaluate a decoded shape in ctx (which needs only args,
 * nargs and the tvars and gvars, and the builtins' fields for UDT_OP_LDVAR).
 * Return: 1 with *ret_val set; 0 if the DIFO would fault there (a variable
 * beyond the session's): run the DIFO to report it. Inline: the probe path
 * evaluates a false predicate with it. Async-signal-safe.
 */
static inline int udt_shape_run(const struct udt_shape *s, const struct udt_vm_ctx *ctx,
				uint64_t *ret_val)
{
	uint64_t v, x, y;

	switch (s->load) {
	case UDT_OP_LDARG:
		v = s->imm < ctx->nargs ? ctx->args[s->imm] : 0;
		break;
	case UDT_OP_LDVAR:
		v = udt_vm_var(ctx, s->imm);
		break;
	case UDT_OP_LDTV:
		if (s->imm >= ctx->ntvars)
			return 0;
		v = ctx->tvars[s->imm];
		break;
	case UDT_OP_LDGV:
		if (s->imm >= ctx->ngvars)
			return 0;
		v = __atomic_load_n(&ctx->gvars[s->imm], __ATOMIC_RELAXED);
		break;
	default:
		return 0;
	}
	if (s->ext) {
		/* as UDT_OP_SEXT and UDT_OP_ZEXT (bits 1 to 64) */
		unsigned sh = 64u - s->ext_bits;
		v = s->ext == UDT_OP_SEXT ? (uint64_t)((int64_t)(v << sh) >> sh) : (v << sh) >> sh;
	}
	x = s->swap ? s->k : v;
	y = s->swap ? v : s->k;
	switch (s->cmp) {
	case 0: break;
	case UDT_OP_SEQ: v = x == y; break;
	case UDT_OP_SNE: v = x != y; break;
	case UDT_OP_SLT: v = (int64_t)x < (int64_t)y; break;
	case UDT_OP_SLTU: v = x < y; break;
	case UDT_OP_SLE: v = (int64_t)x <= (int64_t)y; break;
	default: v = x <= y; break; /* SLEU */
	}
	*ret_val = v;
	return 1;
}

/*
 * udt_difo_run() - run a verified DIFO.
 * Return: 0 with *ret_val set, or -1 with ctx->fault, fault_insn, fault_addr.
 * Async-signal-safe; reads application memory only through fault-safe copies.
 */
int udt_difo_run(const struct udt_difo *d, struct udt_vm_ctx *ctx, uint64_t *ret_val);

#endif /* UDT_VM_H */
