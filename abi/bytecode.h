/* SPDX-License-Identifier: MIT */
/*
 * The bytecode the consumer compiles D into and the runtime runs at fire
 * time (DTrace's DIF is the model). Specified in docs/bytecode.md; this
 * header is its only definition in code.
 *
 * A DIFO (D intermediate format object) computes one 64-bit value: a
 * predicate (non-zero: record), or the value of an action. It is a header,
 * fixed-size instructions, 64-bit constants and a string table:
 *
 *	struct udt_difo | struct udt_insn[insn_cnt] | uint64_t[const_cnt] | char[str_sz]
 *
 * Sixteen 64-bit registers r0..r15, zero on entry; a DIFO may say it uses
 * only the first nregs of them (then only those are cleared). Branches go
 * forward only, so every DIFO ends: the verifier (udt_difo_verify()) checks
 * that, and every opcode, register, constant and string index, before the
 * runtime runs it. Loads from application memory never fault the process: a bad address
 * ends the DIFO with UDT_FAULT_BADADDR, which the runtime records as an
 * error for the consumer.
 */
#ifndef UDT_ABI_BYTECODE_H
#define UDT_ABI_BYTECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define UDT_DIFO_REGS 16
#define UDT_DIFO_MAX_INSNS 8192
#define UDT_DIFO_MAX_ARGS 12      /* native arguments a probe can pass */

struct udt_difo {
	uint32_t size;            /* sizeof(struct udt_difo) */
	uint32_t insn_cnt;
	uint32_t const_cnt;
	uint32_t str_sz;
	uint32_t flags;           /* UDT_DIFO_* */
	uint32_t nregs;           /* registers used, r0..nregs-1 (at most 16); 0: all 16 */
};

#define UDT_DIFO_STRING 0x1u      /* the value is the address of a string */

struct udt_insn {
	uint8_t op;               /* enum udt_op */
	uint8_t rd;               /* destination register */
	uint8_t rs1;              /* source registers */
	uint8_t rs2;
	int32_t imm;              /* immediate, constant/string index, branch target, var id */
};

enum udt_op {
	UDT_OP_NOP = 0,
	UDT_OP_RET,       /* return r[rs1] */
	UDT_OP_MOV,       /* rd = rs1 */
	UDT_OP_LDI,       /* rd = (int64_t)imm */
	UDT_OP_LDC,       /* rd = consts[imm] */
	UDT_OP_LDS,       /* rd = address of strtab + imm (a NUL-terminated string constant) */
	UDT_OP_ADD,       /* rd = rs1 + rs2 (wrapping) */
	UDT_OP_SUB,
	UDT_OP_MUL,
	UDT_OP_UDIV,      /* unsigned; division by zero faults */
	UDT_OP_SDIV,      /* signed; INT64_MIN / -1 is INT64_MIN */
	UDT_OP_UREM,
	UDT_OP_SREM,
	UDT_OP_AND,
	UDT_OP_OR,
	UDT_OP_XOR,
	UDT_OP_SLL,       /* shifts by rs2 & 63 */
	UDT_OP_SRL,
	UDT_OP_SRA,
	UDT_OP_NEG,       /* rd = -rs1 */
	UDT_OP_NOT,       /* rd = ~rs1 */
	UDT_OP_LNOT,      /* rd = !rs1 */
	UDT_OP_SEQ,       /* rd = rs1 == rs2 */
	UDT_OP_SNE,
	UDT_OP_SLT,       /* signed < */
	UDT_OP_SLTU,      /* unsigned < */
	UDT_OP_SLE,
	UDT_OP_SLEU,
	UDT_OP_SEXT,      /* rd = rs1 sign-extended from its low imm bits (1..64) */
	UDT_OP_ZEXT,      /* rd = rs1 with all but its low imm bits cleared */
	UDT_OP_BA,        /* continue at instruction imm (> this one) */
	UDT_OP_BZ,        /* if rs1 == 0, continue at imm */
	UDT_OP_BNZ,       /* if rs1 != 0, continue at imm */
	UDT_OP_LDARG,     /* rd = native argument imm (0..UDT_DIFO_MAX_ARGS-1) */
	UDT_OP_LDARGR,    /* rd = native argument rs1 (out of range faults) */
	UDT_OP_LDVAR,     /* rd = builtin variable imm (enum udt_var) */
	UDT_OP_LDX8,      /* rd = *(uint8_t *)(rs1 + imm), from application memory */
	UDT_OP_LDX16,
	UDT_OP_LDX32,
	UDT_OP_LDX64,
	UDT_OP_LDX8S,     /* signed: sign-extended */
	UDT_OP_LDX16S,
	UDT_OP_LDX32S,
	UDT_OP_LDTV,      /* rd = thread-local variable imm (self->x) */
	UDT_OP_STTV,      /* thread-local variable imm = rs1 */
	UDT_OP_LDLV,      /* rd = clause-local variable imm (this->x) */
	UDT_OP_STLV,      /* clause-local variable imm = rs1 */
	UDT_OP_LDGV,      /* rd = global variable imm (x) */
	UDT_OP_STGV,      /* global variable imm = rs1 */
	UDT_OP_STRCMP,    /* rd = -1, 0 or 1: the strings at rs1 and rs2 compared (strcmp), each
			     at most imm & 0xffff and imm >> 16 bytes (0: UDT_STRCMP_MAX); 0 is "" */
	UDT_OP_SUBR,      /* rd = subroutine imm (enum udt_subr) of rs1 and rs2 */
	/* strings, subroutines and dynamic variables (vm/vm_mem.h, docs/bytecode.md §3.11) */
	UDT_OP_CALL,      /* rd = subroutine imm (enum udt_call) of the rs2 arguments r[rs1...] */
	UDT_OP_LDTS,      /* rd = thread-local string variable imm: its address, 0 when unset */
	UDT_OP_STTS,      /* thread-local string variable imm = a copy of the string at rs1 (0: unset) */
	UDT_OP_LDLS,      /* the same for clause-local string variables (this->) */
	UDT_OP_STLS,
	UDT_OP_LDGS,      /* and for global ones */
	UDT_OP_STGS,
	UDT_OP_LDDV,      /* rd = element of dynamic variable imm (UDT_DV_*) keyed by r[rs1...], rs2 keys */
	UDT_OP_STDV,      /* that element = rd (a string's address for a string variable); 0 deletes */
	/* variables of struct, union and array types, and stores (docs/bytecode.md §3.12) */
	UDT_OP_LDTA,      /* rd = address of thread-local memory variable imm (its string slot's bytes) */
	UDT_OP_LDLA,      /* the same for clause-local ones (this->) */
	UDT_OP_LDGA,      /* and for global ones */
	UDT_OP_STX8,      /* *(uint8_t *)(rs1 + imm) = rs2, into the fire's own memory only */
	UDT_OP_STX16,
	UDT_OP_STX32,
	UDT_OP_STX64,
	UDT_OP_CNT,       /* number of opcodes: anything at or above is invalid */
};

/* STRCMP compares at most this many bytes of each string (DTrace's strsize bound). */
#define UDT_STRCMP_MAX 4096

/*
 * The subroutines of UDT_OP_CALL: D's string and memory subroutines, with
 * DTrace's semantics (docs/bytecode.md §3.11), their arguments a range of
 * registers. A string argument is an address (of the DIFO's string table, a
 * variable, the scratch space or the process's memory, read fault-safe); a
 * string result is in the fire's scratch space, or 0 (NULL). (UDT_OP_SUBR
 * calls the others, of two registers and no memory: enum udt_subr.)
 */
enum udt_call {
	UDT_CALL_STRLEN = 0,      /* (s) */
	UDT_CALL_STRJOIN,         /* (s1, s2) */
	UDT_CALL_SUBSTR,          /* (s, index[, length]) */
	UDT_CALL_INDEX,           /* (s, sub[, start]) */
	UDT_CALL_RINDEX,          /* (s, sub[, start]) */
	UDT_CALL_STRCHR,          /* (s, c) */
	UDT_CALL_STRRCHR,         /* (s, c) */
	UDT_CALL_STRSTR,          /* (s, sub) */
	UDT_CALL_STRTOK,          /* (s or 0, delimiters) */
	UDT_CALL_BASENAME,        /* (s) */
	UDT_CALL_DIRNAME,         /* (s) */
	UDT_CALL_LLTOSTR,         /* (value[, base]) */
	UDT_CALL_TOUPPER,         /* (s) */
	UDT_CALL_TOLOWER,         /* (s) */
	UDT_CALL_COPYIN,          /* (addr, size): a copy in scratch */
	UDT_CALL_COPYINTO,        /* (addr, size, dest in scratch) */
	UDT_CALL_COPYINSTR,       /* (addr[, max]) */
	UDT_CALL_ALLOCA,          /* (size) */
	UDT_CALL_BCOPY,           /* (src, dest in scratch, size) */
	UDT_CALL_STRTOLL,         /* (s[, base]) */
	UDT_CALL_CLEANPATH,       /* (s) */
	UDT_CALL_COPYOUT,         /* (src, dest in the process, size): destructive */
	UDT_CALL_COPYOUTSTR,      /* (s, dest in the process, max): destructive */
	UDT_CALL_INET_NTOA,       /* (addr of 4 bytes) */
	UDT_CALL_INET_NTOA6,      /* (addr of 16 bytes[, IPv4 after the IPv6 part]) */
	UDT_CALL_INET_NTOP,       /* (address family, addr) */
	UDT_CALL_LINK_NTOP,       /* (hardware type, addr) */
	UDT_CALL_CNT,
};

/* UDT_OP_LDDV and UDT_OP_STDV: imm is the variable's number and these flags. */
#define UDT_DV_ID_MASK 0xffffu    /* the dynamic variable (associative array) */
#define UDT_DV_STRKEYS_SHIFT 16   /* bit 16 + k: key k is a string (else 8 bytes of integer) */
#define UDT_DV_THREAD 0x1000000   /* thread-local (self->a[k]): the thread is part of the key */
#define UDT_DV_STRVAL 0x2000000   /* the value is a string */
#define UDT_DV_REFVAL 0x4000000   /* the value is bytes: STDV copies r[rs1 + rs2] of them from rd's
				     address, LDDV gives the value's address */
#define UDT_DV_MAX_KEYS 8         /* keys of an element, at most */

/* Builtin variables for UDT_OP_LDVAR. */
enum udt_var {
	UDT_VAR_TIMESTAMP = 0,    /* CLOCK_MONOTONIC ns, the same for one fire */
	UDT_VAR_WALLTIMESTAMP,    /* CLOCK_REALTIME ns */
	UDT_VAR_VTIMESTAMP,       /* the thread's CPU time, ns */
	UDT_VAR_PID,
	UDT_VAR_TID,
	UDT_VAR_CPU,
	UDT_VAR_EPID,
	UDT_VAR_ERRNO,            /* the application's errno at the fire */
	UDT_VAR_NARGS,            /* number of native arguments */
	UDT_VAR_PPID,             /* the process's parent */
	UDT_VAR_UID,              /* its real user and group IDs */
	UDT_VAR_GID,
	UDT_VAR_CURPSINFO,        /* the address of the process's psinfo_t (abi/psinfo.h), or 0 */
	UDT_VAR_CURLWPSINFO,      /* of the thread's lwpsinfo_t */
	UDT_VAR_CNT,
};

/* Subroutines for UDT_OP_SUBR (vm/subr.c), their arguments in rs1 and rs2. */
enum udt_subr {
	UDT_SUBR_SPECULATION = 0, /* a free speculation's ID, or 0 (counted as a failure) */
	UDT_SUBR_RAND,            /* a pseudo-random int */
	UDT_SUBR_PROGENYOF,       /* 1 if the process is rs1 or one of its descendants */
	UDT_SUBR_HTONS,           /* rs1 in network byte order: 16, 32, 64 bits (their own inverses) */
	UDT_SUBR_HTONL,
	UDT_SUBR_HTONLL,
	UDT_SUBR_UCALLER,         /* the return address of the probe's function (ucaller) */
	UDT_SUBR_USTACKDEPTH,     /* the frames of the user stack (ustackdepth) */
	UDT_SUBR_UREGS,           /* user register rs1 at the probe (uregs[], enum udt_ureg) */
	UDT_SUBR_CNT,
};

/*
 * The registers of uregs[] (UDT_SUBR_UREGS), as D names them (R_RAX...): on
 * x86-64 in the order of Linux's struct pt_regs, as Oracle's DTrace for
 * Linux numbers them; on aarch64 x0 to x30, sp, pc, pstate.
 */
#if defined(__aarch64__)
enum udt_ureg { UDT_UREG_SP = 31, UDT_UREG_PC, UDT_UREG_PSTATE, UDT_UREG_CNT };
#else
enum udt_ureg {
	UDT_UREG_R15 = 0, UDT_UREG_R14, UDT_UREG_R13, UDT_UREG_R12, UDT_UREG_RBP, UDT_UREG_RBX,
	UDT_UREG_R11, UDT_UREG_R10, UDT_UREG_R9, UDT_UREG_R8, UDT_UREG_RAX, UDT_UREG_RCX,
	UDT_UREG_RDX, UDT_UREG_RSI, UDT_UREG_RDI, UDT_UREG_ERR, UDT_UREG_RIP, UDT_UREG_CS,
	UDT_UREG_RFL, UDT_UREG_RSP, UDT_UREG_SS, UDT_UREG_DS, UDT_UREG_ES, UDT_UREG_FS, UDT_UREG_GS,
	UDT_UREG_TRAPNO, UDT_UREG_CNT,
};
#endif

/* Why a DIFO stopped without returning. */
enum udt_fault {
	UDT_FAULT_NONE = 0,
	UDT_FAULT_BADADDR,        /* a load from an address that cannot be read */
	UDT_FAULT_DIVZERO,
	UDT_FAULT_BADARG,         /* LDARGR out of range */
	UDT_FAULT_ILLOP,          /* cannot happen after verification */
	UDT_FAULT_BADVAR,         /* a variable beyond those the session has */
	UDT_FAULT_ILLOP_ARG,      /* an operation given what it cannot take (a speculation ID
				     past nspec, a signal number): DTrace's "illegal operation" */
	UDT_FAULT_NOSCRATCH,      /* the fire's scratch space is full */
};

struct udt_spectab;
struct udt_vm_mem;

#endif /* UDT_ABI_BYTECODE_H */
