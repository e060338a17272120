/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the bytecode verifier and interpreter (vm/vm.c) and of
 * the fault-safe copy (vm/safe.c): every opcode at its edge values,
 * every verifier rule, loads from memory that cannot be read.
 */
#define HARNESS_MAIN
#include "tests/harness.h"

#include "abi/bytecode.h"
#include "vm/safe.h"
#include "vm/vm_mem.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* -- A DIFO in memory ---------------------------------------------------------------------- */

struct difo {
	uint64_t *mem; /* malloc'ed: 8-byte aligned, as the verifier wants */
	size_t sz;
};

static void difo_free(struct difo *b)
{
	free(b->mem);
	b->mem = NULL;
}

#define AUTO_DIFO __attribute__((cleanup(difo_free))) struct difo

static struct udt_difo *hdr(const struct difo *b)
{
	return (struct udt_difo *)b->mem;
}

static struct udt_insn *insns_of(const struct difo *b)
{
	return (struct udt_insn *)((char *)b->mem + hdr(b)->size);
}

/* Lay out header, instructions, constants and string table, as docs/bytecode.md §1. */
static struct difo difo_raw(const struct udt_insn *in, uint32_t n, const uint64_t *consts,
			    uint32_t const_cnt, const char *str, uint32_t str_sz)
{
	struct udt_difo h = { sizeof(h), n, const_cnt, str_sz, 0, 0 };
	struct difo b;
	char *p;

	b.sz = sizeof(h) + (size_t)n * sizeof(*in) + (size_t)const_cnt * 8 + str_sz;
	b.mem = calloc(1, b.sz + 8);
	if (!b.mem)
		abort();
	p = (char *)b.mem;
	memcpy(p, &h, sizeof(h));
	p += sizeof(h);
	if (n)
		memcpy(p, in, (size_t)n * sizeof(*in));
	p += (size_t)n * sizeof(*in);
	if (const_cnt)
		memcpy(p, consts, (size_t)const_cnt * 8);
	p += (size_t)const_cnt * 8;
	if (str_sz)
		memcpy(p, str, str_sz);
	return b;
}

/* -- A small assembler --------------------------------------------------------------------- */

/*
 * One instruction per line (or per ';'): "op operands", operands separated by
 * commas. d = rd, s = rs1, t = rs2 (written rN, N up to 255 so that tests can
 * write bad registers), i = an immediate (C syntax, may be negative). Also:
 * ".const V" appends a constant, ".str text" appends text and its NUL to the
 * string table, "raw OP RD RS1 RS2 IMM" writes any instruction.
 */
static const struct {
	const char *name;
	const char *fmt;
} mnemonics[UDT_OP_CNT] = {
	/* clang-format off */
	[UDT_OP_NOP] = { "nop", "" },        [UDT_OP_RET] = { "ret", "s" },
	[UDT_OP_MOV] = { "mov", "ds" },      [UDT_OP_LDI] = { "ldi", "di" },
	[UDT_OP_LDC] = { "ldc", "di" },      [UDT_OP_LDS] = { "lds", "di" },
	[UDT_OP_ADD] = { "add", "dst" },     [UDT_OP_SUB] = { "sub", "dst" },
	[UDT_OP_MUL] = { "mul", "dst" },     [UDT_OP_UDIV] = { "udiv", "dst" },
	[UDT_OP_SDIV] = { "sdiv", "dst" },   [UDT_OP_UREM] = { "urem", "dst" },
	[UDT_OP_SREM] = { "srem", "dst" },   [UDT_OP_AND] = { "and", "dst" },
	[UDT_OP_OR] = { "or", "dst" },       [UDT_OP_XOR] = { "xor", "dst" },
	[UDT_OP_SLL] = { "sll", "dst" },     [UDT_OP_SRL] = { "srl", "dst" },
	[UDT_OP_SRA] = { "sra", "dst" },     [UDT_OP_NEG] = { "neg", "ds" },
	[UDT_OP_NOT] = { "not", "ds" },      [UDT_OP_LNOT] = { "lnot", "ds" },
	[UDT_OP_SEQ] = { "seq", "dst" },     [UDT_OP_SNE] = { "sne", "dst" },
	[UDT_OP_SLT] = { "slt", "dst" },     [UDT_OP_SLTU] = { "sltu", "dst" },
	[UDT_OP_SLE] = { "sle", "dst" },     [UDT_OP_SLEU] = { "sleu", "dst" },
	[UDT_OP_SEXT] = { "sext", "dsi" },   [UDT_OP_ZEXT] = { "zext", "dsi" },
	[UDT_OP_BA] = { "ba", "i" },         [UDT_OP_BZ] = { "bz", "si" },
	[UDT_OP_BNZ] = { "bnz", "si" },      [UDT_OP_LDARG] = { "ldarg", "di" },
	[UDT_OP_LDARGR] = { "ldargr", "ds" }, [UDT_OP_LDVAR] = { "ldvar", "di" },
	[UDT_OP_LDX8] = { "ldx8", "dsi" },   [UDT_OP_LDX16] = { "ldx16", "dsi" },
	[UDT_OP_LDX32] = { "ldx32", "dsi" }, [UDT_OP_LDX64] = { "ldx64", "dsi" },
	[UDT_OP_LDX8S] = { "ldx8s", "dsi" }, [UDT_OP_LDX16S] = { "ldx16s", "dsi" },
	[UDT_OP_LDX32S] = { "ldx32s", "dsi" },
	[UDT_OP_LDTV] = { "ldtv", "di" },    [UDT_OP_STTV] = { "sttv", "si" },
	[UDT_OP_LDLV] = { "ldlv", "di" },    [UDT_OP_STLV] = { "stlv", "si" },
	[UDT_OP_LDGV] = { "ldgv", "di" },    [UDT_OP_STGV] = { "stgv", "si" },
	[UDT_OP_STRCMP] = { "strcmp", "dsti" }, [UDT_OP_SUBR] = { "subr", "dsti" },
	[UDT_OP_CALL] = { "call", "dsti" },
	[UDT_OP_LDTS] = { "ldts", "di" },    [UDT_OP_STTS] = { "stts", "si" },
	[UDT_OP_LDLS] = { "ldls", "di" },    [UDT_OP_STLS] = { "stls", "si" },
	[UDT_OP_LDGS] = { "ldgs", "di" },    [UDT_OP_STGS] = { "stgs", "si" },
	[UDT_OP_LDDV] = { "lddv", "dsti" },  [UDT_OP_STDV] = { "stdv", "dsti" },
	[UDT_OP_LDTA] = { "ldta", "di" },    [UDT_OP_LDLA] = { "ldla", "di" },
	[UDT_OP_LDGA] = { "ldga", "di" },    [UDT_OP_STX8] = { "stx8", "sti" },
	[UDT_OP_STX16] = { "stx16", "sti" }, [UDT_OP_STX32] = { "stx32", "sti" },
	[UDT_OP_STX64] = { "stx64", "sti" },
	/* clang-format on */
};

#define ASM_MAX 64

static const char *skip_sep(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == ',')
		p++;
	return p;
}

/* A number; unsigned ones may use all 64 bits (for .const), negative ones 63. */
static bool asm_num(const char **pp, long long *ret)
{
	char *end;
	long long v;

	*pp = skip_sep(*pp);
	errno = 0;
	if (**pp == '-')
		v = strtoll(*pp, &end, 0);
	else
		v = (long long)strtoull(*pp, &end, 0);
	if (end == *pp || errno)
		return false;
	*pp = end;
	*ret = v;
	return true;
}

static bool asm_reg(const char **pp, uint8_t *ret)
{
	long long v;

	*pp = skip_sep(*pp);
	if (**pp != 'r')
		return false;
	(*pp)++;
	if (!asm_num(pp, &v) || v < 0 || v > 255)
		return false;
	*ret = (uint8_t)v;
	return true;
}

static bool asm_line(const char *line, struct udt_insn *in, uint64_t *consts, uint32_t *nc,
		     char *str, uint32_t *ssz, bool *is_insn)
{
	const char *p = skip_sep(line);
	size_t len = strcspn(p, " \t");
	long long v[5];

	*is_insn = false;
	if (!*p)
		return true;
	if (len == 6 && !strncmp(p, ".const", len)) {
		p += len;
		if (!asm_num(&p, &v[0]) || *nc >= ASM_MAX)
			return false;
		consts[(*nc)++] = (uint64_t)v[0];
		return true;
	}
	if (len == 4 && !strncmp(p, ".str", len)) {
		p = skip_sep(p + len);
		size_t n = strlen(p) + 1;
		if (*ssz + n > 1024)
			return false;
		memcpy(str + *ssz, p, n);
		*ssz += (uint32_t)n;
		return true;
	}
	*is_insn = true;
	memset(in, 0, sizeof(*in));
	if (len == 3 && !strncmp(p, "raw", len)) {
		p += len;
		for (int k = 0; k < 5; k++)
			if (!asm_num(&p, &v[k]))
				return false;
		*in = (struct udt_insn){ (uint8_t)v[0], (uint8_t)v[1], (uint8_t)v[2], (uint8_t)v[3],
					 (int32_t)v[4] };
		return true;
	}
	for (int op = 0; op < UDT_OP_CNT; op++) {
		if (strlen(mnemonics[op].name) != len || strncmp(p, mnemonics[op].name, len))
			continue;
		in->op = (uint8_t)op;
		p += len;
		for (const char *f = mnemonics[op].fmt; *f; f++) {
			bool ok = true;
			switch (*f) {
			case 'd':
				ok = asm_reg(&p, &in->rd);
				break;
			case 's':
				ok = asm_reg(&p, &in->rs1);
				break;
			case 't':
				ok = asm_reg(&p, &in->rs2);
				break;
			default: {
				/* a huge unsigned number reads as negative: refused here */
				const char *start = skip_sep(p);

				ok = asm_num(&p, &v[0]) && v[0] >= INT32_MIN && v[0] <= INT32_MAX &&
				     (v[0] >= 0 || *start == '-');
				in->imm = (int32_t)v[0];
				break;
			}
			}
			if (!ok)
				return false;
		}
		return !*skip_sep(p);
	}
	return false;
}

/* Assemble src into a DIFO; a syntax error fails the test and gives an empty DIFO. */
static struct difo assemble(const char *src)
{
	struct udt_insn in[ASM_MAX];
	uint64_t consts[ASM_MAX];
	char str[1024], line[256];
	uint32_t n = 0, nc = 0, ssz = 0;

	while (*src) {
		size_t len = strcspn(src, ";\n");
		bool is_insn;

		if (len >= sizeof(line) || n >= ASM_MAX)
			goto bad;
		memcpy(line, src, len);
		line[len] = 0;
		if (!asm_line(line, &in[n], consts, &nc, str, &ssz, &is_insn)) {
			UDT__FAIL("assembler: cannot read \"%s\"", line);
			goto bad;
		}
		n += is_insn;
		src += len;
		if (*src)
			src++;
	}
	return difo_raw(in, n, consts, nc, str, ssz);
bad:
	return difo_raw(NULL, 0, NULL, 0, NULL, 0);
}

/* -- Running ------------------------------------------------------------------------------- */

static const uint64_t test_args[3] = { 10, 20, 0xfffffffffffffffeull };

static uint64_t test_tvars[4], test_locals[2], test_gvars[3];

static struct udt_vm_ctx test_ctx(void)
{
	return (struct udt_vm_ctx){
		.tvars = test_tvars,
		.ntvars = 4,
		.locals = test_locals,
		.nlocals = 2,
		.gvars = test_gvars,
		.ngvars = 3,
		.args = test_args,
		.nargs = 3,
		.timestamp = 123456789,
		.epid = 7,
		.cpu = 3,
		.pid = 4242,
		.tid = 4243,
		.err = -5,
	};
}

/* Verify and run src; the value it returns (a verifier or run failure fails the test). */
static uint64_t eval(const char *src)
{
	AUTO_DIFO b = assemble(src);
	struct udt_vm_ctx ctx = test_ctx();
	uint32_t bad = 0;
	uint64_t v = 0xdeadbeef;

	if (!CHECK_EQ(udt_difo_verify(hdr(&b), b.sz, &bad), 0)) {
		fprintf(stderr, "  rejected at instruction %u of: %s\n", bad, src);
		return 0xdeadbeef;
	}
	if (!CHECK_EQ(udt_difo_run(hdr(&b), &ctx, &v), 0))
		fprintf(stderr, "  fault %u at %u (0x%llx) in: %s\n", ctx.fault, ctx.fault_insn,
			(unsigned long long)ctx.fault_addr, src);
	return v;
}

/* Verify and run src, which must fault: the context with the fault. */
static struct udt_vm_ctx eval_fault(const char *src)
{
	AUTO_DIFO b = assemble(src);
	struct udt_vm_ctx ctx = test_ctx();
	uint32_t bad = 0;
	uint64_t v = 0xdeadbeef;

	ctx.fault = UDT_FAULT_NONE;
	if (!CHECK_EQ(udt_difo_verify(hdr(&b), b.sz, &bad), 0))
		return ctx;
	CHECK_EQ(udt_difo_run(hdr(&b), &ctx, &v), -1);
	CHECK_EQ(v, 0xdeadbeef); /* *ret_val is written only on success */
	return ctx;
}

/* The index at which the verifier rejects src (UINT32_MAX if it accepts it). */
static uint32_t rejected_at(const char *src)
{
	AUTO_DIFO b = assemble(src);
	uint32_t bad = UINT32_MAX;
	int err = udt_difo_verify(hdr(&b), b.sz, &bad);

	if (err == 0)
		return UINT32_MAX;
	CHECK_EQ(err, -EINVAL);
	return bad;
}

static const char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));

/* printf into a rotating static buffer: for building sources with addresses. */
static const char *fmt(const char *f, ...)
{
	static char bufs[4][512];
	static int next;
	char *b = bufs[next++ & 3];
	va_list ap;

	va_start(ap, f);
	vsnprintf(b, sizeof(bufs[0]), f, ap);
	va_end(ap);
	return b;
}

#define I64(x) ((uint64_t)(int64_t)(x))

/* -- The assembler itself ------------------------------------------------------------------ */

TEST(assembler_lays_out_header_insns_consts_and_strings)
{
	AUTO_DIFO b = assemble(".const 0x1122334455667788; .str ab; .str c\n"
			       "ldc r1, 0; lds r2, 3; add r3, r1, r2; ret r3");
	const struct udt_difo *h = hdr(&b);
	const struct udt_insn *in = insns_of(&b);

	CHECK_EQ(h->size, sizeof(struct udt_difo));
	CHECK_EQ(h->insn_cnt, 4);
	CHECK_EQ(h->const_cnt, 1);
	CHECK_EQ(h->str_sz, 5);
	CHECK_EQ(b.sz, 24 + 4 * 8 + 8 + 5);
	CHECK_EQ(in[2].op, UDT_OP_ADD);
	CHECK_EQ(in[2].rd, 3);
	CHECK_EQ(in[2].rs1, 1);
	CHECK_EQ(in[2].rs2, 2);
	CHECK_EQ(in[1].imm, 3);
	CHECK_EQ(*(const uint64_t *)(in + 4), 0x1122334455667788);
	CHECK(!memcmp((const char *)(in + 4) + 8, "ab\0c\0", 5));
	CHECK_EQ(udt_difo_verify(h, b.sz, NULL), 0);
}

/* -- Moves, constants, strings ------------------------------------------------------------- */

TEST(nop_and_ret)
{
	CHECK_EQ(eval("nop; nop; ret r0"), 0);
}

TEST(registers_are_zero_on_entry)
{
	for (int r = 0; r < UDT_DIFO_REGS; r++)
		CHECK_EQ(eval(fmt("ret r%d", r)), 0);
	/* a second run does not see the first one's registers */
	CHECK_EQ(eval("ldi r9, 5; ret r9"), 5);
	CHECK_EQ(eval("ret r9"), 0);
}

TEST(op_mov)
{
	CHECK_EQ(eval("ldi r1, -3; mov r15, r1; ret r15"), I64(-3));
	CHECK_EQ(eval("ldi r1, 4; mov r1, r1; ret r1"), 4);
}

TEST(op_ldi_sign_extends)
{
	CHECK_EQ(eval("ldi r0, -1; ret r0"), UINT64_MAX);
	CHECK_EQ(eval("ldi r0, 2147483647; ret r0"), 0x7fffffff);
	CHECK_EQ(eval("ldi r0, -2147483648; ret r0"), 0xffffffff80000000ull);
	CHECK_EQ(eval("ldi r0, 0; ret r0"), 0);
}

TEST(op_ldc)
{
	CHECK_EQ(eval(".const 1; .const -1; .const 0x8000000000000000; ldc r4, 1; ret r4"),
		 UINT64_MAX);
	CHECK_EQ(eval(".const 1; .const -1; .const 0x8000000000000000; ldc r4, 2; ret r4"),
		 0x8000000000000000ull);
	CHECK_EQ(eval(".const 77; ldc r0, 0; ret r0"), 77);
}

TEST(op_lds_points_into_the_string_table)
{
	AUTO_DIFO b = assemble(".str hello; .str world; lds r1, 6; ret r1");
	struct udt_vm_ctx ctx = test_ctx();
	const char *strtab = (const char *)(insns_of(&b) + 2);
	uint64_t v = 0;

	REQUIRE_EQ(udt_difo_verify(hdr(&b), b.sz, NULL), 0);
	REQUIRE_EQ(udt_difo_run(hdr(&b), &ctx, &v), 0);
	CHECK_EQ(v, (uintptr_t)(strtab + 6));
	CHECK_STR((const char *)(uintptr_t)v, "world");

	/* an index into the middle of a string is its tail; the last NUL is "" */
	static const struct {
		int idx;
		const char *str;
	} tails[] = { { 0, "hello" }, { 2, "llo" }, { 5, "" } };
	for (size_t i = 0; i < sizeof(tails) / sizeof(tails[0]); i++) {
		AUTO_DIFO t = assemble(fmt(".str hello; lds r0, %d; ret r0", tails[i].idx));

		v = 0;
		REQUIRE_EQ(udt_difo_verify(hdr(&t), t.sz, NULL), 0);
		REQUIRE_EQ(udt_difo_run(hdr(&t), &ctx, &v), 0);
		CHECK_STR((const char *)(uintptr_t)v, tails[i].str);
	}
}

TEST(op_strcmp)
{
	/* strings of the table: "abc" at 0, "abd" at 4, "ab" at 8, "abc" again at 11 */
	const char *tab = ".str abc; .str abd; .str ab; .str abc; ";

	CHECK_EQ(eval(fmt("%s lds r1, 0; lds r2, 11; strcmp r0, r1, r2, 0; ret r0", tab)), 0);
	CHECK_EQ(eval(fmt("%s lds r1, 0; lds r2, 4; strcmp r0, r1, r2, 0; ret r0", tab)), I64(-1));
	CHECK_EQ(eval(fmt("%s lds r1, 4; lds r2, 0; strcmp r0, r1, r2, 0; ret r0", tab)), 1);
	CHECK_EQ(eval(fmt("%s lds r1, 8; lds r2, 0; strcmp r0, r1, r2, 0; ret r0", tab)), I64(-1));
	/* bounds: "abc" cut at 2 bytes is "ab"; "abd" and "abc" agree on 2 */
	CHECK_EQ(eval(fmt("%s lds r1, 0; lds r2, 8; strcmp r0, r1, r2, 2; ret r0", tab)), 0);
	CHECK_EQ(eval(fmt("%s lds r1, 0; lds r2, 4; strcmp r0, r1, r2, %d; ret r0", tab,
			  2 | 2 << 16)), 0);

	/* an unreadable string faults with its address */
	struct udt_vm_ctx c = eval_fault(fmt("%s lds r1, 0; ldi r2, 16; strcmp r0, r1, r2, 0; "
					     "ret r0", tab));
	CHECK_EQ(c.fault, UDT_FAULT_BADADDR);
	CHECK_EQ(c.fault_addr, 16);
	CHECK_EQ(c.fault_insn, 2);
}

/* -- Arithmetic ---------------------------------------------------------------------------- */

TEST(op_add_wraps)
{
	CHECK_EQ(eval("ldi r1, 2; ldi r2, 3; add r0, r1, r2; ret r0"), 5);
	CHECK_EQ(eval("ldi r1, -1; ldi r2, 1; add r0, r1, r2; ret r0"), 0);
	CHECK_EQ(eval(".const 0x7fffffffffffffff; ldc r1, 0; ldi r2, 1; add r0, r1, r2; ret r0"),
		 0x8000000000000000ull);
}

TEST(op_sub_wraps)
{
	CHECK_EQ(eval("ldi r1, 2; ldi r2, 3; sub r0, r1, r2; ret r0"), UINT64_MAX);
	CHECK_EQ(eval(".const 0x8000000000000000; ldc r1, 0; ldi r2, 1; sub r0, r1, r2; ret r0"),
		 0x7fffffffffffffffull);
	CHECK_EQ(eval("ldi r1, 9; sub r0, r1, r1; ret r0"), 0);
}

TEST(op_mul_wraps)
{
	CHECK_EQ(eval("ldi r1, -7; ldi r2, 6; mul r0, r1, r2; ret r0"), I64(-42));
	CHECK_EQ(eval(".const 0x100000000; ldc r1, 0; mul r0, r1, r1; ret r0"), 0);
	CHECK_EQ(eval(".const 0x8000000000000000; ldc r1, 0; ldi r2, -1; mul r0, r1, r2; ret r0"),
		 0x8000000000000000ull);
	CHECK_EQ(eval(".const 0xffffffffffffffff; ldc r1, 0; mul r0, r1, r1; ret r0"), 1);
}

TEST(op_udiv)
{
	CHECK_EQ(eval("ldi r1, 7; ldi r2, 2; udiv r0, r1, r2; ret r0"), 3);
	/* -1 is 2^64 - 1 to udiv */
	CHECK_EQ(eval("ldi r1, -1; ldi r2, 2; udiv r0, r1, r2; ret r0"), 0x7fffffffffffffffull);
	CHECK_EQ(eval("ldi r1, 5; ldi r2, -1; udiv r0, r1, r2; ret r0"), 0);
	CHECK_EQ(eval("ldi r1, -1; udiv r0, r1, r1; ret r0"), 1);

	struct udt_vm_ctx c = eval_fault("ldi r1, 7; nop; udiv r0, r1, r2; ret r0");
	CHECK_EQ(c.fault, UDT_FAULT_DIVZERO);
	CHECK_EQ(c.fault_insn, 2);
	CHECK_EQ(c.fault_addr, 0);
}

TEST(op_sdiv)
{
	CHECK_EQ(eval("ldi r1, 7; ldi r2, 2; sdiv r0, r1, r2; ret r0"), 3);
	/* truncates toward zero */
	CHECK_EQ(eval("ldi r1, -7; ldi r2, 2; sdiv r0, r1, r2; ret r0"), I64(-3));
	CHECK_EQ(eval("ldi r1, 7; ldi r2, -2; sdiv r0, r1, r2; ret r0"), I64(-3));
	CHECK_EQ(eval("ldi r1, -7; ldi r2, -2; sdiv r0, r1, r2; ret r0"), 3);
	CHECK_EQ(eval(".const 0x8000000000000000; ldc r1, 0; ldi r2, -1; sdiv r0, r1, r2; ret r0"),
		 0x8000000000000000ull);
	CHECK_EQ(eval(".const 0x8000000000000000; ldc r1, 0; ldi r2, 1; sdiv r0, r1, r2; ret r0"),
		 0x8000000000000000ull);
	CHECK_EQ(eval(".const 0x8000000000000000; ldc r1, 0; ldi r2, 2; sdiv r0, r1, r2; ret r0"),
		 0xc000000000000000ull);

	struct udt_vm_ctx c = eval_fault("ldi r1, -7; sdiv r0, r1, r2; ret r0");
	CHECK_EQ(c.fault, UDT_FAULT_DIVZERO);
	CHECK_EQ(c.fault_insn, 1);
}

TEST(op_urem)
{
	CHECK_EQ(eval("ldi r1, 7; ldi r2, 3; urem r0, r1, r2; ret r0"), 1);
	CHECK_EQ(eval("ldi r1, -1; ldi r2, 10; urem r0, r1, r2; ret r0"), 5); /* 2^64-1 */
	CHECK_EQ(eval("ldi r1, 5; ldi r2, -1; urem r0, r1, r2; ret r0"), 5);

	struct udt_vm_ctx c = eval_fault("ldi r1, 7; urem r0, r1, r0; ret r0");
	CHECK_EQ(c.fault, UDT_FAULT_DIVZERO);
	CHECK_EQ(c.fault_insn, 1);
}

TEST(op_srem)
{
	/* the sign of the dividend, as C */
	CHECK_EQ(eval("ldi r1, -7; ldi r2, 2; srem r0, r1, r2; ret r0"), I64(-1));
	CHECK_EQ(eval("ldi r1, 7; ldi r2, -2; srem r0, r1, r2; ret r0"), 1);
	CHECK_EQ(eval("ldi r1, -7; ldi r2, -2; srem r0, r1, r2; ret r0"), I64(-1));
	CHECK_EQ(eval(".const 0x8000000000000000; ldc r1, 0; ldi r2, -1; srem r0, r1, r2; ret r0"),
		 0);
	CHECK_EQ(eval(".const 0x8000000000000000; ldc r1, 0; ldi r2, 3; srem r0, r1, r2; ret r0"),
		 I64(-2));

	struct udt_vm_ctx c = eval_fault("nop; nop; nop; srem r0, r1, r2; ret r0");
	CHECK_EQ(c.fault, UDT_FAULT_DIVZERO);
	CHECK_EQ(c.fault_insn, 3);
}

TEST(op_and_or_xor)
{
	const char *c =
		".const 0xff00ff00ff00ff00; .const 0x0ff00ff00ff00ff0; ldc r1, 0; ldc r2, 1;";

	CHECK_EQ(eval(fmt("%s and r0, r1, r2; ret r0", c)), 0x0f000f000f000f00ull);
	CHECK_EQ(eval(fmt("%s or r0, r1, r2; ret r0", c)), 0xfff0fff0fff0fff0ull);
	CHECK_EQ(eval(fmt("%s xor r0, r1, r2; ret r0", c)), 0xf0f0f0f0f0f0f0f0ull);
	CHECK_EQ(eval(fmt("%s xor r0, r1, r1; ret r0", c)), 0);
}

TEST(op_sll)
{
	CHECK_EQ(eval("ldi r1, 1; ldi r2, 63; sll r0, r1, r2; ret r0"), 0x8000000000000000ull);
	CHECK_EQ(eval("ldi r1, 3; ldi r2, 63; sll r0, r1, r2; ret r0"), 0x8000000000000000ull);
	/* counts are taken modulo 64 */
	CHECK_EQ(eval("ldi r1, 1; ldi r2, 64; sll r0, r1, r2; ret r0"), 1);
	CHECK_EQ(eval("ldi r1, 1; ldi r2, 65; sll r0, r1, r2; ret r0"), 2);
	CHECK_EQ(eval("ldi r1, 1; ldi r2, -1; sll r0, r1, r2; ret r0"), 0x8000000000000000ull);
	CHECK_EQ(eval("ldi r1, 5; sll r0, r1, r2; ret r0"), 5);
}

TEST(op_srl)
{
	CHECK_EQ(eval("ldi r1, -1; ldi r2, 63; srl r0, r1, r2; ret r0"), 1);
	CHECK_EQ(eval("ldi r1, -1; ldi r2, 1; srl r0, r1, r2; ret r0"), 0x7fffffffffffffffull);
	CHECK_EQ(eval("ldi r1, -1; ldi r2, 64; srl r0, r1, r2; ret r0"), UINT64_MAX);
	CHECK_EQ(eval("ldi r1, 256; ldi r2, 72; srl r0, r1, r2; ret r0"), 1);
}

TEST(op_sra)
{
	CHECK_EQ(eval(".const 0x8000000000000000; ldc r1, 0; ldi r2, 63; sra r0, r1, r2; ret r0"),
		 UINT64_MAX);
	CHECK_EQ(eval(".const 0x8000000000000000; ldc r1, 0; ldi r2, 4; sra r0, r1, r2; ret r0"),
		 0xf800000000000000ull);
	CHECK_EQ(eval("ldi r1, -16; ldi r2, 2; sra r0, r1, r2; ret r0"), I64(-4));
	CHECK_EQ(eval("ldi r1, -1; ldi r2, 63; sra r0, r1, r2; ret r0"), UINT64_MAX);
	CHECK_EQ(eval(".const 0x7fffffffffffffff; ldc r1, 0; ldi r2, 62; sra r0, r1, r2; ret r0"),
		 1);
	CHECK_EQ(eval("ldi r1, -16; ldi r2, 64; sra r0, r1, r2; ret r0"), I64(-16));
	CHECK_EQ(eval("ldi r1, -16; ldi r2, 66; sra r0, r1, r2; ret r0"), I64(-4));
}

TEST(op_neg_not_lnot)
{
	CHECK_EQ(eval("ldi r1, 1; neg r0, r1; ret r0"), UINT64_MAX);
	CHECK_EQ(eval("neg r0, r1; ret r0"), 0);
	CHECK_EQ(eval(".const 0x8000000000000000; ldc r1, 0; neg r0, r1; ret r0"),
		 0x8000000000000000ull);
	CHECK_EQ(eval("not r0, r1; ret r0"), UINT64_MAX);
	CHECK_EQ(eval("ldi r1, 0x0f; not r0, r1; ret r0"), 0xfffffffffffffff0ull);
	CHECK_EQ(eval("lnot r0, r1; ret r0"), 1);
	CHECK_EQ(eval("ldi r1, 5; lnot r0, r1; ret r0"), 0);
	CHECK_EQ(eval("ldi r1, -1; lnot r0, r1; ret r0"), 0);
	CHECK_EQ(eval(".const 0x100000000; ldc r1, 0; lnot r0, r1; ret r0"), 0);
}

TEST(op_compares)
{
	/* a = -1 (huge unsigned), b = 1: signed and unsigned disagree */
	const char *ab = "ldi r1, -1; ldi r2, 1;";

	CHECK_EQ(eval(fmt("%s seq r0, r1, r2; ret r0", ab)), 0);
	CHECK_EQ(eval(fmt("%s seq r0, r1, r1; ret r0", ab)), 1);
	CHECK_EQ(eval(fmt("%s sne r0, r1, r2; ret r0", ab)), 1);
	CHECK_EQ(eval(fmt("%s sne r0, r2, r2; ret r0", ab)), 0);
	CHECK_EQ(eval(fmt("%s slt r0, r1, r2; ret r0", ab)), 1);
	CHECK_EQ(eval(fmt("%s slt r0, r2, r1; ret r0", ab)), 0);
	CHECK_EQ(eval(fmt("%s slt r0, r1, r1; ret r0", ab)), 0);
	CHECK_EQ(eval(fmt("%s sltu r0, r1, r2; ret r0", ab)), 0);
	CHECK_EQ(eval(fmt("%s sltu r0, r2, r1; ret r0", ab)), 1);
	CHECK_EQ(eval(fmt("%s sltu r0, r2, r2; ret r0", ab)), 0);
	CHECK_EQ(eval(fmt("%s sle r0, r1, r2; ret r0", ab)), 1);
	CHECK_EQ(eval(fmt("%s sle r0, r2, r1; ret r0", ab)), 0);
	CHECK_EQ(eval(fmt("%s sle r0, r1, r1; ret r0", ab)), 1);
	CHECK_EQ(eval(fmt("%s sleu r0, r1, r2; ret r0", ab)), 0);
	CHECK_EQ(eval(fmt("%s sleu r0, r2, r1; ret r0", ab)), 1);
	CHECK_EQ(eval(fmt("%s sleu r0, r1, r1; ret r0", ab)), 1);
	/* the extremes */
	CHECK_EQ(eval(".const 0x8000000000000000; .const 0x7fffffffffffffff; ldc r1, 0; ldc r2, 1;"
		      "slt r0, r1, r2; ret r0"),
		 1);
	CHECK_EQ(eval(".const 0x8000000000000000; .const 0x7fffffffffffffff; ldc r1, 0; ldc r2, 1;"
		      "sltu r0, r1, r2; ret r0"),
		 0);
}

TEST(op_sext)
{
	CHECK_EQ(eval("ldi r1, 0x80; sext r0, r1, 8; ret r0"), I64(-128));
	CHECK_EQ(eval("ldi r1, 0x7f; sext r0, r1, 8; ret r0"), 127);
	/* bits above the width are ignored */
	CHECK_EQ(eval("ldi r1, 0x1ff; sext r0, r1, 8; ret r0"), UINT64_MAX);
	CHECK_EQ(eval("ldi r1, 0x17f; sext r0, r1, 8; ret r0"), 127);
	CHECK_EQ(eval("ldi r1, 1; sext r0, r1, 1; ret r0"), UINT64_MAX);
	CHECK_EQ(eval("ldi r1, 2; sext r0, r1, 1; ret r0"), 0);
	CHECK_EQ(eval("ldi r1, 0x8000; sext r0, r1, 16; ret r0"), 0xffffffffffff8000ull);
	CHECK_EQ(eval(".const 0x80000000; ldc r1, 0; sext r0, r1, 32; ret r0"),
		 0xffffffff80000000ull);
	CHECK_EQ(eval(".const 0x4000000000000000; ldc r1, 0; sext r0, r1, 63; ret r0"),
		 0xc000000000000000ull);
	CHECK_EQ(eval(".const 0x8000000000000001; ldc r1, 0; sext r0, r1, 64; ret r0"),
		 0x8000000000000001ull);
}

TEST(op_zext)
{
	CHECK_EQ(eval("ldi r1, -1; zext r0, r1, 8; ret r0"), 0xff);
	CHECK_EQ(eval("ldi r1, -1; zext r0, r1, 1; ret r0"), 1);
	CHECK_EQ(eval("ldi r1, -2; zext r0, r1, 1; ret r0"), 0);
	CHECK_EQ(eval("ldi r1, -1; zext r0, r1, 32; ret r0"), 0xffffffffull);
	CHECK_EQ(eval("ldi r1, -1; zext r0, r1, 63; ret r0"), 0x7fffffffffffffffull);
	CHECK_EQ(eval("ldi r1, -1; zext r0, r1, 64; ret r0"), UINT64_MAX);
}

/* -- Branches ------------------------------------------------------------------------------ */

TEST(op_ba)
{
	CHECK_EQ(eval("ldi r0, 1; ba 3; ldi r0, 2; ret r0"), 1);
	CHECK_EQ(eval("ba 1; ldi r0, 2; ret r0"), 2); /* to the next one */
}

TEST(op_bz)
{
	CHECK_EQ(eval("ldi r0, 1; bz r1, 3; ldi r0, 2; ret r0"), 1); /* taken */
	CHECK_EQ(eval("ldi r0, 1; ldi r1, -1; bz r1, 4; ldi r0, 2; ret r0"), 2); /* not */
	CHECK_EQ(eval(".const 0x100000000; ldc r1, 0; bz r1, 3; ldi r0, 9; ret r0"), 9);
}

TEST(op_bnz)
{
	CHECK_EQ(eval("ldi r0, 1; bnz r1, 3; ldi r0, 2; ret r0"), 2); /* not taken */
	CHECK_EQ(eval("ldi r0, 1; ldi r1, 5; bnz r1, 4; ldi r0, 2; ret r0"), 1); /* taken */
	CHECK_EQ(eval(".const 0x8000000000000000; ldc r1, 0; bnz r1, 3; ldi r0, 9; ret r0"), 0);
}

TEST(branches_make_a_conditional)
{
	/* r0 = arg0 > 5 ? 100 : 200, the shape the compiler gives ?: */
	const char *src = "ldarg r1, 0; ldi r2, 5; sltu r3, r2, r1; bz r3, 6; ldi r0, 100; ba 7;"
			  "ldi r0, 200; ret r0";

	CHECK_EQ(eval(src), 100); /* arg0 is 10 */
}

/* -- Arguments and variables --------------------------------------------------------------- */

TEST(op_ldarg)
{
	CHECK_EQ(eval("ldarg r0, 0; ret r0"), 10);
	CHECK_EQ(eval("ldarg r0, 1; ret r0"), 20);
	CHECK_EQ(eval("ldarg r0, 2; ret r0"), 0xfffffffffffffffeull);
	/* past nargs (3): 0, as DTrace gives */
	CHECK_EQ(eval("ldi r0, 9; ldarg r0, 3; ret r0"), 0);
	CHECK_EQ(eval("ldi r0, 9; ldarg r0, 11; ret r0"), 0);

	/* no arguments at all: args is not even read */
	AUTO_DIFO b = assemble("ldarg r0, 0; ret r0");
	struct udt_vm_ctx ctx = { .args = NULL, .nargs = 0 };
	uint64_t v = 1;

	REQUIRE_EQ(udt_difo_verify(hdr(&b), b.sz, NULL), 0);
	CHECK_EQ(udt_difo_run(hdr(&b), &ctx, &v), 0);
	CHECK_EQ(v, 0);
}

TEST(op_ldargr)
{
	CHECK_EQ(eval("ldi r1, 1; ldargr r0, r1; ret r0"), 20);
	CHECK_EQ(eval("ldargr r0, r1; ret r0"), 10);
	CHECK_EQ(eval("ldi r1, 2; ldargr r0, r1; ret r0"), 0xfffffffffffffffeull);

	struct udt_vm_ctx c = eval_fault("ldi r1, 3; ldargr r0, r1; ret r0");
	CHECK_EQ(c.fault, UDT_FAULT_BADARG);
	CHECK_EQ(c.fault_insn, 1);
	c = eval_fault("ldi r1, -1; nop; ldargr r0, r1; ret r0");
	CHECK_EQ(c.fault, UDT_FAULT_BADARG);
	CHECK_EQ(c.fault_insn, 2);
	c = eval_fault(".const 0x100000000; ldc r1, 0; ldargr r0, r1; ret r0");
	CHECK_EQ(c.fault, UDT_FAULT_BADARG);
}

static uint64_t clock_now(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

TEST(op_variables)
{
	struct udt_vm_ctx c0;

	CHECK_EQ(eval("ldi r1, 77; sttv r1, 3; ldi r1, 0; ldtv r0, 3; ret r0"), 77);
	CHECK_EQ(test_tvars[3], 77);
	CHECK_EQ(eval("ldi r1, -2; stlv r1, 1; ldlv r0, 1; ret r0"), I64(-2));
	CHECK_EQ(test_locals[1], I64(-2));
	CHECK_EQ(eval("ldi r1, 9; stgv r1, 2; ldgv r0, 2; ret r0"), 9);
	CHECK_EQ(test_gvars[2], 9);
	/* the three scopes are apart */
	CHECK_EQ(eval("ldi r1, 5; sttv r1, 0; ldi r1, 6; stlv r1, 0; ldi r1, 7; stgv r1, 0; "
		      "ldtv r0, 0; ret r0"), 5);
	CHECK_EQ(test_locals[0], 6);
	CHECK_EQ(test_gvars[0], 7);
	c0 = eval_fault("ldgv r0, 3; ret r0");
	CHECK_EQ(c0.fault, UDT_FAULT_BADVAR);

	/* beyond what the session has: a fault, not a stray access */
	struct udt_vm_ctx c = eval_fault("ldtv r0, 4; ret r0");
	CHECK_EQ(c.fault, UDT_FAULT_BADVAR);
	CHECK_EQ(c.fault_insn, 0);
	c = eval_fault("ldi r0, 1; stlv r0, 2; ret r0");
	CHECK_EQ(c.fault, UDT_FAULT_BADVAR);
	CHECK_EQ(c.fault_insn, 1);

	/* a negative index is refused before any run */
	CHECK_EQ(rejected_at(fmt("ldi r0, 0; raw %d 0 0 0 -1; ret r0", UDT_OP_STTV)), 1);
	CHECK_EQ(rejected_at(fmt("raw %d 0 0 0 -3; ret r0", UDT_OP_LDLV)), 0);
}

TEST(op_subr)
{
	/* progenyof(): this process is its own progeny and its parent's, not -1's */
	char src[128];
	snprintf(src, sizeof(src), "ldi r1, %d; subr r0, r1, r1, %d; ret r0", (int)getppid(),
		 UDT_SUBR_PROGENYOF);
	CHECK_EQ(eval(src), 1);
	snprintf(src, sizeof(src), "ldi r1, -1; subr r0, r1, r1, %d; ret r0", UDT_SUBR_PROGENYOF);
	CHECK_EQ(eval(src), 0);
	/* (test_ctx's pid is 4242, not ours: it is its own progeny all the same) */
	CHECK_EQ(eval(fmt("ldi r1, 4242; subr r0, r1, r1, %d; ret r0", UDT_SUBR_PROGENYOF)), 1);
	/* rand(): a thread's state moves on */
	uint64_t state[2] = { 0, 0 };
	AUTO_DIFO b = assemble(fmt("subr r0, r0, r0, %d; ret r0", UDT_SUBR_RAND));
	struct udt_vm_ctx ctx = test_ctx();
	uint64_t a = 0, c = 0;
	ctx.rand = state;
	REQUIRE_EQ(udt_difo_verify(hdr(&b), b.sz, NULL), 0);
	CHECK_EQ(udt_difo_run(hdr(&b), &ctx, &a), 0);
	CHECK(state[0] || state[1]);
	CHECK_EQ(udt_difo_run(hdr(&b), &ctx, &c), 0);
	CHECK_NE(a, c);
	/* speculation() without speculations: 0 */
	CHECK_EQ(eval(fmt("subr r0, r0, r0, %d; ret r0", UDT_SUBR_SPECULATION)), 0);
	/* an unknown subroutine is refused before any run */
	CHECK_EQ(rejected_at(fmt("subr r0, r0, r0, %d; ret r0", UDT_SUBR_CNT)), 0);
	CHECK_EQ(rejected_at("subr r0, r0, r0, -1; ret r0"), 0);
}

TEST(op_ldvar)
{
	CHECK_EQ(eval(fmt("ldvar r0, %d; ret r0", UDT_VAR_TIMESTAMP)), 123456789);
	CHECK_EQ(eval(fmt("ldvar r0, %d; ret r0", UDT_VAR_PID)), 4242);
	CHECK_EQ(eval(fmt("ldvar r0, %d; ret r0", UDT_VAR_TID)), 4243);
	CHECK_EQ(eval(fmt("ldvar r0, %d; ret r0", UDT_VAR_CPU)), 3);
	CHECK_EQ(eval(fmt("ldvar r0, %d; ret r0", UDT_VAR_EPID)), 7);
	CHECK_EQ(eval(fmt("ldvar r0, %d; ret r0", UDT_VAR_ERRNO)), I64(-5)); /* sign-extended */
	CHECK_EQ(eval(fmt("ldvar r0, %d; ret r0", UDT_VAR_NARGS)), 3);

	uint64_t before = clock_now(CLOCK_REALTIME);
	uint64_t wall = eval(fmt("ldvar r0, %d; ret r0", UDT_VAR_WALLTIMESTAMP));
	uint64_t after = clock_now(CLOCK_REALTIME);
	CHECK(wall >= before && wall <= after);

	/* burn a little CPU so the thread's clock has visibly moved */
	volatile uint64_t sink = 0;
	for (int i = 0; i < 1000000; i++)
		sink += (uint64_t)i;
	(void)sink;
	before = clock_now(CLOCK_THREAD_CPUTIME_ID);
	uint64_t vts = eval(fmt("ldvar r0, %d; ret r0", UDT_VAR_VTIMESTAMP));
	after = clock_now(CLOCK_THREAD_CPUTIME_ID);
	CHECK(vts > 0);
	CHECK(vts >= before && vts <= after);
}

/* -- Loads from application memory --------------------------------------------------------- */

static const uint8_t load_bytes[16] __attribute__((aligned(8))) = {
	0x81, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88,
	0x7f, 0xff, 0x7f, 0xff, 0xff, 0x7f, 0x00, 0x00,
};

TEST(op_ldx_widths_and_signs)
{
	char base[64];

	/* little-endian, as both supported architectures */
	snprintf(base, sizeof(base), ".const %#llx; ldc r1, 0;",
		 (unsigned long long)(uintptr_t)load_bytes);

	CHECK_EQ(eval(fmt("%s ldx8 r0, r1, 0; ret r0", base)), 0x81);
	CHECK_EQ(eval(fmt("%s ldx8s r0, r1, 0; ret r0", base)), I64(-127));
	CHECK_EQ(eval(fmt("%s ldx8s r0, r1, 8; ret r0", base)), 0x7f);
	CHECK_EQ(eval(fmt("%s ldx16 r0, r1, 0; ret r0", base)), 0x8281);
	CHECK_EQ(eval(fmt("%s ldx16s r0, r1, 0; ret r0", base)), 0xffffffffffff8281ull);
	CHECK_EQ(eval(fmt("%s ldx16s r0, r1, 8; ret r0", base)), I64((int16_t)0xff7f));
	CHECK_EQ(eval(fmt("%s ldx16s r0, r1, 9; ret r0", base)), 0x7fff); /* unaligned */
	CHECK_EQ(eval(fmt("%s ldx32 r0, r1, 0; ret r0", base)), 0x84838281);
	CHECK_EQ(eval(fmt("%s ldx32s r0, r1, 0; ret r0", base)), 0xffffffff84838281ull);
	CHECK_EQ(eval(fmt("%s ldx32s r0, r1, 10; ret r0", base)), 0x7fffff7f);
	CHECK_EQ(eval(fmt("%s ldx64 r0, r1, 0; ret r0", base)), 0x8887868584838281ull);
	CHECK_EQ(eval(fmt("%s ldx64 r0, r1, 3; ret r0", base)), 0x7fff7f8887868584ull);
}

TEST(op_ldx_offset_is_signed)
{
	uintptr_t a = (uintptr_t)load_bytes + 8;

	CHECK_EQ(eval(fmt(".const %#llx; ldc r1, 0; ldx8 r0, r1, -8; ret r0",
			  (unsigned long long)a)),
		 0x81);
	CHECK_EQ(eval(fmt(".const %#llx; ldc r1, 0; ldx64 r0, r1, -8; ret r0",
			  (unsigned long long)a)),
		 0x8887868584838281ull);
}

static void check_bad_load(uint64_t addr, const char *what)
{
	static const char *const ops[] = { "ldx8",  "ldx16",  "ldx32", "ldx64",
					   "ldx8s", "ldx16s", "ldx32s" };

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		struct udt_vm_ctx c = eval_fault(fmt(".const %#llx; ldc r1, 0; nop; %s r0, r1, 0;"
						     "ret r0",
						     (unsigned long long)addr, ops[i]));
		if (!CHECK_EQ(c.fault, UDT_FAULT_BADADDR) || !CHECK_EQ(c.fault_insn, 2) ||
		    !CHECK_EQ(c.fault_addr, addr))
			fprintf(stderr, "  %s from %s\n", ops[i], what);
	}
}

TEST(op_ldx_from_null_faults)
{
	check_bad_load(0, "NULL");
	/* NULL plus an offset: the address in the fault is the sum */
	struct udt_vm_ctx c = eval_fault("ldx32 r0, r1, 16; ret r0");
	CHECK_EQ(c.fault, UDT_FAULT_BADADDR);
	CHECK_EQ(c.fault_addr, 16);
	CHECK_EQ(c.fault_insn, 0);
}

TEST(op_ldx_from_unmapped_page_faults)
{
	long pg = sysconf(_SC_PAGESIZE);
	char *p =
		mmap(NULL, (size_t)pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	REQUIRE(p != MAP_FAILED);
	REQUIRE_EQ(munmap(p, (size_t)pg), 0);
	check_bad_load((uintptr_t)p, "an unmapped page");
	check_bad_load((uintptr_t)p + (uint64_t)pg - 1, "the end of an unmapped page");
}

TEST(op_ldx_from_prot_none_page_faults)
{
	long pg = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, (size_t)pg, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	REQUIRE(p != MAP_FAILED);
	check_bad_load((uintptr_t)p, "a PROT_NONE page");
	munmap(p, (size_t)pg);
}

TEST(op_ldx_across_into_a_hole_faults)
{
	long pg = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, 2 * (size_t)pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	REQUIRE(p != MAP_FAILED);
	REQUIRE_EQ(munmap(p + pg, (size_t)pg), 0);
	memset(p, 0x5a, (size_t)pg);
	uint64_t last = (uintptr_t)p + (uint64_t)pg - 4;
	/* four readable bytes, then the hole: all or nothing */
	CHECK_EQ(eval(fmt(".const %#llx; ldc r1, 0; ldx32 r0, r1, 0; ret r0",
			  (unsigned long long)last)),
		 0x5a5a5a5a);
	struct udt_vm_ctx c = eval_fault(
		fmt(".const %#llx; ldc r1, 0; ldx64 r0, r1, 0; ret r0", (unsigned long long)last));
	CHECK_EQ(c.fault, UDT_FAULT_BADADDR);
	CHECK_EQ(c.fault_addr, last);
	munmap(p, (size_t)pg);
}

TEST(op_ldx_at_the_top_of_the_address_space_faults)
{
	check_bad_load(UINT64_MAX, "the last byte of the address space");
	check_bad_load(UINT64_MAX - 2, "a range that wraps (or nearly)");
	check_bad_load(0xffff800000000000ull, "kernel space");
}

TEST(fault_leaves_ret_val_and_reports_the_instruction)
{
	AUTO_DIFO b = assemble("ldi r0, 1; ldi r1, 0; ldx8 r2, r1, 0; ret r0");
	struct udt_vm_ctx ctx = test_ctx();
	uint64_t v = 42;

	REQUIRE_EQ(udt_difo_verify(hdr(&b), b.sz, NULL), 0);
	CHECK_EQ(udt_difo_run(hdr(&b), &ctx, &v), -1);
	CHECK_EQ(v, 42);
	CHECK_EQ(ctx.fault, UDT_FAULT_BADADDR);
	CHECK_EQ(ctx.fault_insn, 2);
	CHECK_EQ(ctx.fault_addr, 0);
	/* the same context runs the next DIFO: success does not need fault cleared */
	CHECK_EQ(eval("ldi r0, 3; ret r0"), 3);
}

TEST(errno_is_unchanged_across_run)
{
	static const char *const srcs[] = {
		"ldi r1, 0; ldx64 r0, r1, 0; ret r0", /* a fault in the kernel */
		"ldvar r0, 1; ret r0", /* walltimestamp */
		"ldvar r0, 2; ret r0", /* vtimestamp */
		"ldi r1, 0; udiv r0, r1, r1; ret r0",
	};
	uint64_t x = 77;

	for (size_t i = 0; i < sizeof(srcs) / sizeof(srcs[0]); i++) {
		AUTO_DIFO b = assemble(srcs[i]);
		struct udt_vm_ctx ctx = test_ctx();
		uint64_t v;

		REQUIRE_EQ(udt_difo_verify(hdr(&b), b.sz, NULL), 0);
		errno = 4321;
		(void)udt_difo_run(hdr(&b), &ctx, &v);
		CHECK_EQ(errno, 4321);
	}
	/* and a good load */
	AUTO_DIFO g = assemble(fmt(".const %#llx; ldc r1, 0; ldx64 r0, r1, 0; ret r0",
				   (unsigned long long)(uintptr_t)&x));
	struct udt_vm_ctx ctx = test_ctx();
	uint64_t v = 0;
	REQUIRE_EQ(udt_difo_verify(hdr(&g), g.sz, NULL), 0);
	errno = 4321;
	CHECK_EQ(udt_difo_run(hdr(&g), &ctx, &v), 0);
	CHECK_EQ(errno, 4321);
	CHECK_EQ(v, 77);
}

/* -- Predicates' shapes run without the interpreter (udt_difo_run_shape()) --------------- */

/* Run src both ways: the shape runner must take it (or not, as want_taken says) and agree. */
static uint64_t shape_args[3];

static void shape_agrees(const char *src, bool want_taken)
{
	AUTO_DIFO b = assemble(src);
	struct udt_vm_ctx c1 = test_ctx(), c2 = test_ctx();

	c1.args = c2.args = shape_args;
	uint64_t v1 = 0x1111, v2 = 0x2222;

	REQUIRE_EQ(udt_difo_verify(hdr(&b), b.sz, NULL), 0);
	int taken = udt_difo_run_shape(hdr(&b), &c1, &v1);
	if (!CHECK_EQ(taken, want_taken ? 1 : 0))
		fprintf(stderr, "  for: %s\n", src);
	if (taken && CHECK_EQ(udt_difo_run(hdr(&b), &c2, &v2), 0) && !CHECK_EQ(v1, v2))
		fprintf(stderr, "  for: %s\n", src);
	if (!taken)
		CHECK_EQ(v1, 0x1111); /* nothing set */
}

TEST(shapes_run_as_the_interpreter_runs_them)
{
	static const char *const loads[] = { "ldarg r0, 0", "ldarg r0, 1", "ldarg r0, 2",
					     "ldarg r0, 5", "ldvar r0, 3", "ldvar r0, 5",
					     "ldtv r0, 1", "ldgv r0, 2" };
	static const char *const cmps[] = { "seq", "sne", "slt", "sltu", "sle", "sleu" };
	static const char *const consts[] = { "ldi r1, 0", "ldi r1, -1", "ldi r1, 4242",
					      "ldi r1, 2147483647", "ldc r1, 0" };
	static const uint64_t tv[] = { 0, 1, (uint64_t)-1, 0x8000000000000000ull, 4242 };

	for (size_t t = 0; t < sizeof(tv) / sizeof(tv[0]); t++) {
		shape_args[0] = tv[t];
		shape_args[1] = ~tv[t];
		shape_args[2] = tv[t] >> 1;
		test_tvars[1] = tv[t];
		test_gvars[2] = tv[(t + 1) % 5];
		for (size_t l = 0; l < sizeof(loads) / sizeof(loads[0]); l++) {
			shape_agrees(fmt("%s; ret r0", loads[l]), true);
			shape_agrees(fmt("%s; sext r0, r0, 32; ret r0", loads[l]), true);
			shape_agrees(fmt("%s; zext r0, r0, 16; ret r0", loads[l]), true);
			for (size_t c = 0; c < sizeof(cmps) / sizeof(cmps[0]); c++)
				for (size_t k = 0; k < sizeof(consts) / sizeof(consts[0]); k++) {
					shape_agrees(fmt(".const 0x8000000000000001; %s; %s; %s r2, r0, r1; ret r2",
							 loads[l], consts[k], cmps[c]), true);
					shape_agrees(fmt(".const 5; %s; sext r0, r0, 8; %s; %s r0, r1, r0; ret r0",
							 loads[l], consts[k], cmps[c]), true);
				}
		}
	}
	/* not the shape: the interpreter's */
	shape_agrees("ldi r0, 1; ret r0", false);
	shape_agrees("ldarg r0, 0; ldi r1, 3; add r0, r0, r1; ret r0", false);
	shape_agrees("ldarg r0, 0; ldi r1, 3; slt r2, r0, r1; ret r0", false);  /* returns another */
	shape_agrees("ldarg r0, 0; ldi r0, 3; seq r1, r0, r0; ret r1", false);  /* constant over it */
	shape_agrees("ldarg r0, 0; sext r1, r0, 32; ret r1", false);           /* extends a copy */
	shape_agrees("ldarg r0, 0; ldarg r1, 1; seq r2, r0, r1; ret r2", false);
	/* would fault: left to the interpreter, which reports it */
	shape_agrees("ldtv r0, 4; ret r0", false);
	shape_agrees("ldgv r0, 3; ldi r1, 0; seq r0, r0, r1; ret r0", false);
}

/* -- The fault-safe copy itself ------------------------------------------------------------ */

TEST(safe_copy)
{
	long pg = sysconf(_SC_PAGESIZE);
	char src[32] = "the quick brown fox", dst[32];
	char *none = mmap(NULL, (size_t)pg, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	REQUIRE(none != MAP_FAILED);
	memset(dst, 0, sizeof(dst));
	errno = 99;
	CHECK_EQ(udt__safe_copy(dst, (uintptr_t)src, sizeof(src)), 0);
	CHECK_STR(dst, "the quick brown fox");
	CHECK_EQ(udt__safe_copy(dst, 0, 1), -EFAULT);
	CHECK_EQ(udt__safe_copy(dst, (uintptr_t)none, 8), -EFAULT);
	CHECK_EQ(udt__safe_copy(dst, UINT64_MAX, 2), -EFAULT);
	/* nothing to copy: fine from anywhere */
	CHECK_EQ(udt__safe_copy(dst, 0, 0), 0);
	/* a bad destination is reported, not faulted on */
	CHECK_EQ(udt__safe_copy(none, (uintptr_t)src, 8), -EFAULT);
	CHECK_EQ(errno, 99);
	munmap(none, (size_t)pg);
}

TEST(safe_copy_reads_the_child_after_fork)
{
	static volatile uint64_t cell = 1;
	pid_t pid;
	int status = 0;

	pid = fork();
	REQUIRE(pid >= 0);
	if (pid == 0) {
		uint64_t v = 0;

		cell = 2; /* only in the child: a read of the parent would see 1 */
		if (udt__safe_copy(&v, (uintptr_t)&cell, 8))
			_exit(3);
		_exit(v == 2 ? 0 : 4);
	}
	REQUIRE_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status));
	CHECK_EQ(WEXITSTATUS(status), 0);
}

/*
 * Direct copies (safe.c): plain loads whose faults the handler of
 * udt__safe_arm() recovers. Each test runs in a child, whose signal handlers
 * and seccomp filter die with it. The filter makes process_vm_readv fail with
 * EPERM, so a copy of good memory succeeds only if it was direct, and one
 * that fails shows the kernel's path was taken.
 */
static void deny_process_vm_readv(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_process_vm_readv, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
		fprintf(stderr, "seccomp: %s\n", strerror(errno));
		_exit(77);
	}
}

/* Run fn in a child with process_vm_readv denied; its CHECKs count there. */
static void in_child(void (*fn)(void))
{
	int status = 0;
	pid_t pid = fork();

	REQUIRE(pid >= 0);
	if (pid == 0) {
		deny_process_vm_readv();
		fn();
		fflush(stderr);
		_exit(udt_test_state.failed ? 1 : 0);
	}
	REQUIRE_EQ(waitpid(pid, &status, 0), pid);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 77)
		SKIP("seccomp filters are not available");
	CHECK(WIFEXITED(status));
	if (WIFSIGNALED(status))
		fprintf(stderr, "the child died of signal %d\n", WTERMSIG(status));
	CHECK_EQ(WEXITSTATUS(status), 0);
}

/* A copy as the probe path makes it: in a fire. */
static int fire_copy(void *dst, uint64_t src, size_t len)
{
	udt__safe_fire_begin();
	int r = udt__safe_copy(dst, src, len);
	udt__safe_fire_end();
	return r;
}

static void direct_copies_fault_safely(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	char src[32] = "the quick brown fox", dst[32], *none, *two;
	uint64_t v = 0;

	none = mmap(NULL, (size_t)pg, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	two = mmap(NULL, 2 * (size_t)pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		   0);
	REQUIRE(none != MAP_FAILED && two != MAP_FAILED);
	/* outside a fire, and before arming, copies are the kernel's: denied here */
	CHECK_EQ(udt__safe_copy(dst, (uintptr_t)src, 8), -EFAULT);
	CHECK_EQ(udt__safe_arm(), 0);
	CHECK_EQ(udt__safe_copy(dst, (uintptr_t)src, 8), -EFAULT);
	errno = 99;
	memset(dst, 0, sizeof(dst));
	CHECK_EQ(fire_copy(dst, (uintptr_t)src, sizeof(src)), 0);
	CHECK_STR(dst, "the quick brown fox");
	for (size_t len = 1; len <= 9; len++) {
		memset(dst, 0, sizeof(dst));
		CHECK_EQ(fire_copy(dst, (uintptr_t)src + 1, len), 0);
		CHECK_EQ(memcmp(dst, src + 1, len), 0);
	}
	CHECK_EQ(fire_copy(&v, 0, 8), -EFAULT);
	CHECK_EQ(fire_copy(&v, 8, 4), -EFAULT);
	CHECK_EQ(fire_copy(dst, (uintptr_t)none, 8), -EFAULT);
	CHECK_EQ(fire_copy(dst, (uintptr_t)none + 7, 3), -EFAULT);
	CHECK_EQ(fire_copy(dst, 0x800000000000ull, 8), -EFAULT);     /* non-canonical */
	CHECK_EQ(fire_copy(dst, 0xffffffff81000000ull, 8), -EFAULT); /* the kernel's */
	CHECK_EQ(fire_copy(dst, UINT64_MAX - 3, 8), -EFAULT);       /* wraps */
	/* a copy that runs into a hole fails whole */
	REQUIRE_EQ(munmap(two + pg, (size_t)pg), 0);
	memcpy(two + pg - 4, "abc", 4);
	CHECK_EQ(fire_copy(dst, (uintptr_t)two + pg - 4, 4), 0);
	CHECK_EQ(fire_copy(dst, (uintptr_t)two + pg - 4, 5), -EFAULT);
	CHECK_EQ(fire_copy(dst, (uintptr_t)two + pg - 4, 8), -EFAULT);
	CHECK_EQ(errno, 99);
	munmap(none, (size_t)pg);
	munmap(two, (size_t)pg);
}

TEST(direct_copies_fault_safely)
{
	in_child(direct_copies_fault_safely);
}

static void direct_strings_stop_at_the_nul_and_at_holes(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	char dst[16];
	uint64_t bad = 1;
	char *m = mmap(NULL, 2 * (size_t)pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	REQUIRE(m != MAP_FAILED);
	REQUIRE_EQ(mprotect(m + pg, (size_t)pg, PROT_NONE), 0);
	CHECK_EQ(udt__safe_arm(), 0);
	/* "hi" and its NUL end the page: nothing past them is read, or written */
	memcpy(m + pg - 3, "hi", 3);
	memset(dst, 'x', sizeof(dst));
	udt__safe_fire_begin();
	CHECK_EQ(udt__safe_strcpy(dst, (uintptr_t)m + pg - 3, sizeof(dst), &bad), 2);
	CHECK_STR(dst, "hi");
	CHECK_EQ(dst[3], 'x');
	/* no NUL before the hole: where it starts */
	memcpy(m + pg - 3, "abc", 3);
	CHECK_EQ(udt__safe_strcpy(dst, (uintptr_t)m + pg - 3, sizeof(dst), &bad), -EFAULT);
	CHECK_EQ(bad, (uintptr_t)m + pg);
	/* cut at the size */
	CHECK_EQ(udt__safe_strcpy(dst, (uintptr_t)"the quick brown fox", 8, &bad), 7);
	CHECK_STR(dst, "the qui");
	CHECK_EQ(udt__safe_strcpy(dst, 0, sizeof(dst), &bad), -EFAULT);
	CHECK_EQ(bad, 0);
	udt__safe_fire_end();
	munmap(m, 2 * (size_t)pg);
}

TEST(direct_strings_stop_at_the_nul_and_at_holes)
{
	in_child(direct_strings_stop_at_the_nul_and_at_holes);
}

/* A file mapping past the end of its file: SIGBUS, recovered like SIGSEGV. */
static void direct_copy_past_the_end_of_a_file(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	char path[] = "/tmp/udt-test-vm-XXXXXX";
	int fd = mkstemp(path);
	uint64_t v;

	REQUIRE(fd >= 0);
	unlink(path);
	REQUIRE_EQ(ftruncate(fd, 2 * pg), 0);
	char *m = mmap(NULL, 2 * (size_t)pg, PROT_READ, MAP_SHARED, fd, 0);
	REQUIRE(m != MAP_FAILED);
	REQUIRE_EQ(ftruncate(fd, pg), 0);
	CHECK_EQ(udt__safe_arm(), 0);
	CHECK_EQ(fire_copy(&v, (uintptr_t)m, 8), 0);
	CHECK_EQ(fire_copy(&v, (uintptr_t)m + pg, 8), -EFAULT);
	munmap(m, 2 * (size_t)pg);
	close(fd);
}

TEST(direct_copy_past_the_end_of_a_file)
{
	in_child(direct_copy_past_the_end_of_a_file);
}

/* The application's own faults: its handler runs, as without ours. */
static volatile sig_atomic_t app_faults;
static char *app_page;

static void app_handler(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)uc;
	app_faults++;
	/* a guard page it opens on first touch, as a GC would */
	if ((char *)si->si_addr >= app_page && (char *)si->si_addr < app_page + sysconf(_SC_PAGESIZE))
		mprotect(app_page, (size_t)sysconf(_SC_PAGESIZE), PROT_READ | PROT_WRITE);
}

static void install_app_handler(void)
{
	struct sigaction sa = { .sa_sigaction = app_handler, .sa_flags = SA_SIGINFO };

	sigemptyset(&sa.sa_mask);
	REQUIRE_EQ(sigaction(SIGSEGV, &sa, NULL), 0);
}

static void faults_not_ours_reach_the_application(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	uint64_t v;

	app_page = mmap(NULL, (size_t)pg, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	REQUIRE(app_page != MAP_FAILED);
	install_app_handler();
	CHECK_EQ(udt__safe_arm(), 0);
	/* ours: recovered, never shown to the application */
	CHECK_EQ(fire_copy(&v, (uintptr_t)app_page, 8), -EFAULT);
	CHECK_EQ(app_faults, 0);
	/* its own: its handler opens the page and the load goes on */
	((volatile char *)app_page)[1] = 7;
	CHECK_EQ(app_faults, 1);
	CHECK_EQ(fire_copy(&v, (uintptr_t)app_page, 1), 0);
	/* a SIGSEGV sent by kill() is the application's too */
	raise(SIGSEGV);
	CHECK_EQ(app_faults, 2);
}

TEST(faults_not_ours_reach_the_application)
{
	in_child(faults_not_ours_reach_the_application);
}

static void replaced_handler_means_kernel_copies(void)
{
	uint64_t v, good = 5;

	CHECK_EQ(udt__safe_arm(), 0);
	CHECK_EQ(fire_copy(&v, (uintptr_t)&good, 8), 0);
	install_app_handler(); /* after ours: the application's wins */
	CHECK_EQ(fire_copy(&v, (uintptr_t)&good, 8), -EFAULT); /* the kernel's (denied here) */
	CHECK_EQ(fire_copy(&v, 0, 8), -EFAULT);
	CHECK_EQ(app_faults, 0);
	/* for good: even with ours back */
	CHECK_EQ(udt__safe_arm(), -EBUSY);
	CHECK_EQ(fire_copy(&v, (uintptr_t)&good, 8), -EFAULT);
}

TEST(replaced_handler_means_kernel_copies)
{
	in_child(replaced_handler_means_kernel_copies);
}

static void *copy_with_signals_blocked(void *arg)
{
	sigset_t all;
	uint64_t v, good = 5;

	(void)arg;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	/* a fault with SIGSEGV blocked would kill: these copies are the kernel's */
	CHECK_EQ(fire_copy(&v, (uintptr_t)&good, 8), -EFAULT);
	CHECK_EQ(fire_copy(&v, 0, 8), -EFAULT);
	return NULL;
}

static void blocked_signals_mean_kernel_copies(void)
{
	pthread_t t;
	uint64_t v, good = 5;

	CHECK_EQ(udt__safe_arm(), 0);
	REQUIRE_EQ(pthread_create(&t, NULL, copy_with_signals_blocked, NULL), 0);
	pthread_join(t, NULL);
	CHECK_EQ(fire_copy(&v, (uintptr_t)&good, 8), 0);
}

TEST(blocked_signals_mean_kernel_copies)
{
	in_child(blocked_signals_mean_kernel_copies);
}

/* A handler that leaves by siglongjmp(), as memory-probing code does: every fault reaches it. */
static sigjmp_buf probe_env;

static void probe_handler(int sig)
{
	(void)sig;
	siglongjmp(probe_env, 1);
}

static void longjmp_handlers_keep_working(void)
{
	char *none = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	volatile int caught = 0;
	uint64_t v;

	REQUIRE(none != MAP_FAILED);
	signal(SIGSEGV, probe_handler);
	CHECK_EQ(udt__safe_arm(), 0);
	for (int i = 0; i < 3; i++) {
		if (sigsetjmp(probe_env, 1) == 0)
			(void)*(volatile char *)none; /* the application's own probe */
		else
			caught++;
		CHECK_EQ(fire_copy(&v, (uintptr_t)none, 8), -EFAULT); /* ours, in between */
	}
	CHECK_EQ(caught, 3);
}

TEST(longjmp_handlers_keep_working)
{
	in_child(longjmp_handlers_keep_working);
}

/* A handler re-installed over ours that chains back to ours: nobody handles the fault. */
static struct sigaction chained_old;

static void chains_back(int sig, siginfo_t *si, void *uc)
{
	if (chained_old.sa_flags & SA_SIGINFO)
		chained_old.sa_sigaction(sig, si, uc);
}

TEST(a_handler_that_chains_back_to_ours_ends_in_the_default_action)
{
	int status = 0;
	pid_t pid = fork();

	REQUIRE(pid >= 0);
	if (pid == 0) {
		struct sigaction sa = { .sa_sigaction = chains_back, .sa_flags = SA_SIGINFO };
		struct rlimit nocore = { 0, 0 };
		char *none = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		setrlimit(RLIMIT_CORE, &nocore);
		sigemptyset(&sa.sa_mask);
		sigaction(SIGSEGV, &sa, NULL);          /* ours will chain to it */
		if (none == MAP_FAILED || udt__safe_arm())
			_exit(1);
		sigaction(SIGSEGV, &sa, &chained_old);  /* and it to ours */
		*(volatile char *)none = 1;
		_exit(2);
	}
	REQUIRE_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFSIGNALED(status));
	CHECK_EQ(WTERMSIG(status), SIGSEGV);
}

/* An application that dies of its own fault still dies of it, core and all. */
TEST(a_real_crash_still_kills)
{
	int status = 0;
	pid_t pid = fork();

	REQUIRE(pid >= 0);
	if (pid == 0) {
		uint64_t v = 0;
		struct rlimit nocore = { 0, 0 };
		char *none = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		setrlimit(RLIMIT_CORE, &nocore);
		signal(SIGSEGV, SIG_DFL);
		if (none == MAP_FAILED || udt__safe_arm() || fire_copy(&v, (uintptr_t)none, 8) != -EFAULT)
			_exit(1);
		*(volatile char *)none = 1;
		_exit(2);
	}
	REQUIRE_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFSIGNALED(status));
	CHECK_EQ(WTERMSIG(status), SIGSEGV);
}

/* -- Running what was not verified --------------------------------------------------------- */

TEST(unverified_unknown_opcode_is_illop)
{
	AUTO_DIFO b = assemble("nop; raw 200 0 0 0 0; ret r0");
	struct udt_vm_ctx ctx = test_ctx();
	uint64_t v;

	CHECK_EQ(udt_difo_verify(hdr(&b), b.sz, NULL), -EINVAL);
	CHECK_EQ(udt_difo_run(hdr(&b), &ctx, &v), -1);
	CHECK_EQ(ctx.fault, UDT_FAULT_ILLOP);
	CHECK_EQ(ctx.fault_insn, 1);
}

TEST(unverified_fall_off_the_end_is_illop)
{
	AUTO_DIFO b = assemble("nop; ldi r0, 1");
	struct udt_vm_ctx ctx = test_ctx();
	uint64_t v;

	CHECK_EQ(udt_difo_run(hdr(&b), &ctx, &v), -1);
	CHECK_EQ(ctx.fault, UDT_FAULT_ILLOP);
	CHECK_EQ(ctx.fault_insn, 1);
}

/* -- The verifier: one test per rule ------------------------------------------------------- */

TEST(verify_accepts_minimal)
{
	uint32_t bad = 1234;

	AUTO_DIFO b = assemble("ret r0");
	CHECK_EQ(udt_difo_verify(hdr(&b), b.sz, &bad), 0);
	CHECK_EQ(bad, 1234); /* untouched on success */
	CHECK_EQ(udt_difo_verify(hdr(&b), b.sz, NULL), 0);
}

TEST(verify_rejects_null_and_short_buffers)
{
	AUTO_DIFO b = assemble("ret r0");
	uint32_t bad = 99;

	CHECK_EQ(udt_difo_verify(NULL, 0, &bad), -EINVAL);
	CHECK_EQ(bad, 0);
	bad = 99;
	CHECK_EQ(udt_difo_verify(hdr(&b), sizeof(struct udt_difo) - 1, &bad), -EINVAL);
	CHECK_EQ(bad, 0);
	CHECK_EQ(udt_difo_verify(hdr(&b), 0, NULL), -EINVAL);
}

TEST(verify_rejects_size_inconsistent_with_sz)
{
	AUTO_DIFO b = assemble(".const 5; .str x; ldc r0, 0; ret r0");
	uint32_t bad = 99;

	REQUIRE_EQ(udt_difo_verify(hdr(&b), b.sz, NULL), 0);
	CHECK_EQ(udt_difo_verify(hdr(&b), b.sz - 1, &bad), -EINVAL);
	CHECK_EQ(bad, 0);
	bad = 99;
	CHECK_EQ(udt_difo_verify(hdr(&b), b.sz + 1, &bad), -EINVAL);
	CHECK_EQ(bad, 0);
	/* counts that do not add up to sz */
	hdr(&b)->const_cnt = 2;
	CHECK_EQ(udt_difo_verify(hdr(&b), b.sz, &bad), -EINVAL);
	hdr(&b)->const_cnt = 1;
	hdr(&b)->insn_cnt = 1;
	CHECK_EQ(udt_difo_verify(hdr(&b), b.sz, &bad), -EINVAL);
	CHECK_EQ(bad, 0);
}

TEST(verify_size_arithmetic_does_not_overflow)
{
	AUTO_DIFO b = assemble("ret r0");
	uint32_t bad = 99;

	/* 2^29 constants are 2^32 bytes: 32-bit arithmetic would wrap to sz */
	hdr(&b)->const_cnt = 0x20000000;
	CHECK_EQ(udt_difo_verify(hdr(&b), b.sz, &bad), -EINVAL);
	CHECK_EQ(bad, 0);
	/* and everything at its largest */
	hdr(&b)->const_cnt = UINT32_MAX;
	hdr(&b)->str_sz = UINT32_MAX;
	hdr(&b)->size = UINT32_MAX - 7;
	CHECK_EQ(udt_difo_verify(hdr(&b), b.sz, &bad), -EINVAL);
	CHECK_EQ(udt_difo_verify(hdr(&b), SIZE_MAX, &bad), -EINVAL);
}

TEST(verify_rejects_header_size_field_too_small)
{
	AUTO_DIFO b = assemble("ret r0");
	uint32_t bad = 99;

	hdr(&b)->size = sizeof(struct udt_difo) - 8;
	CHECK_EQ(udt_difo_verify(hdr(&b), b.sz - 8, &bad), -EINVAL);
	CHECK_EQ(bad, 0);
	hdr(&b)->size = 0;
	CHECK_EQ(udt_difo_verify(hdr(&b), b.sz - sizeof(struct udt_difo), &bad), -EINVAL);
}

TEST(verify_accepts_a_larger_header_and_rejects_an_unaligned_one)
{
	/* a newer header: 8 more bytes, the body after them */
	struct udt_insn in[2] = { { UDT_OP_LDC, 0, 0, 0, 0 }, { UDT_OP_RET, 0, 0, 0, 0 } };
	uint64_t mem[8] = { 0 };
	struct udt_difo h = { sizeof(h) + 8, 2, 1, 0, 0, 0 };
	struct udt_vm_ctx ctx = test_ctx();
	uint64_t v = 0;
	uint32_t bad = 99;

	memcpy(mem, &h, sizeof(h));
	memcpy((char *)mem + 32, in, sizeof(in));
	mem[6] = 0xabcdef;
	CHECK_EQ(udt_difo_verify((void *)mem, 56, &bad), 0);
	CHECK_EQ(udt_difo_run((void *)mem, &ctx, &v), 0);
	CHECK_EQ(v, 0xabcdef);

	/* a header size that would misalign the instructions and constants */
	h.size = sizeof(h) + 4;
	memcpy(mem, &h, sizeof(h));
	CHECK_EQ(udt_difo_verify((void *)mem, 52, &bad), -EINVAL);
	CHECK_EQ(bad, 0);
}

TEST(verify_rejects_an_unaligned_difo)
{
	uint64_t mem[8] = { 0 };
	char *p = (char *)mem + 4;
	struct udt_difo h = { sizeof(h), 1, 0, 0, 0, 0 };
	struct udt_insn ret = { UDT_OP_RET, 0, 0, 0, 0 };
	uint32_t bad = 99;

	memcpy(p, &h, sizeof(h));
	memcpy(p + sizeof(h), &ret, sizeof(ret));
	CHECK_EQ(udt_difo_verify((const void *)p, sizeof(h) + 8, &bad), -EINVAL);
	CHECK_EQ(bad, 0);
}

TEST(verify_rejects_zero_instructions)
{
	AUTO_DIFO b = difo_raw(NULL, 0, NULL, 0, NULL, 0);
	uint32_t bad = 99;

	CHECK_EQ(udt_difo_verify(hdr(&b), b.sz, &bad), -EINVAL);
	CHECK_EQ(bad, 0);
}

static struct difo big_difo(uint32_t n)
{
	struct udt_insn *in = calloc(n, sizeof(*in));
	struct difo b;

	if (!in)
		abort();
	/* r1 = 1, then r0 += r1 until the last, RET r0 */
	in[0] = (struct udt_insn){ UDT_OP_LDI, 1, 0, 0, 1 };
	for (uint32_t i = 1; i + 1 < n; i++)
		in[i] = (struct udt_insn){ UDT_OP_ADD, 0, 0, 1, 0 };
	in[n - 1] = (struct udt_insn){ UDT_OP_RET, 0, 0, 0, 0 };
	b = difo_raw(in, n, NULL, 0, NULL, 0);
	free(in);
	return b;
}

TEST(verify_rejects_too_many_instructions)
{
	AUTO_DIFO b = big_difo(UDT_DIFO_MAX_INSNS + 1);
	uint32_t bad = 99;

	CHECK_EQ(udt_difo_verify(hdr(&b), b.sz, &bad), -EINVAL);
	CHECK_EQ(bad, 0);
}

TEST(verify_and_run_the_largest_difo)
{
	AUTO_DIFO b = big_difo(UDT_DIFO_MAX_INSNS);
	struct udt_vm_ctx ctx = test_ctx();
	uint32_t bad = 99;
	uint64_t v = 0;

	CHECK_EQ(b.sz, sizeof(struct udt_difo) + 8 * UDT_DIFO_MAX_INSNS);
	REQUIRE_EQ(udt_difo_verify(hdr(&b), b.sz, &bad), 0);
	REQUIRE_EQ(udt_difo_run(hdr(&b), &ctx, &v), 0);
	CHECK_EQ(v, UDT_DIFO_MAX_INSNS - 2);

	/* a branch from the first instruction to the last */
	insns_of(&b)[0] = (struct udt_insn){ UDT_OP_BA, 0, 0, 0, UDT_DIFO_MAX_INSNS - 1 };
	REQUIRE_EQ(udt_difo_verify(hdr(&b), b.sz, &bad), 0);
	REQUIRE_EQ(udt_difo_run(hdr(&b), &ctx, &v), 0);
	CHECK_EQ(v, 0);
}

TEST(verify_rejects_string_table_without_final_nul)
{
	struct udt_insn in[2] = { { UDT_OP_LDS, 0, 0, 0, 0 }, { UDT_OP_RET, 0, 0, 0, 0 } };
	AUTO_DIFO b = difo_raw(in, 2, NULL, 0, "abc", 3);
	AUTO_DIFO ok = difo_raw(in, 2, NULL, 0, "ab", 3);
	uint32_t bad = 99;

	CHECK_EQ(udt_difo_verify(hdr(&b), b.sz, &bad), -EINVAL);
	CHECK_EQ(bad, 0);
	CHECK_EQ(udt_difo_verify(hdr(&ok), ok.sz, &bad), 0);
}

TEST(verify_rejects_unknown_opcode)
{
	CHECK_EQ(rejected_at(fmt("nop; nop; raw %d 0 0 0 0; ret r0", UDT_OP_CNT)), 2);
	CHECK_EQ(rejected_at("raw 255 0 0 0 0; ret r0"), 0);
	/* (the last opcode, STDV, takes one key at least) */
	CHECK_EQ(rejected_at(fmt("nop; raw %d 0 0 1 0; ret r0", UDT_OP_CNT - 1)), UINT32_MAX);
}

TEST(verify_rejects_bad_rd)
{
	CHECK_EQ(rejected_at("nop; ldi r16, 1; ret r0"), 1);
	CHECK_EQ(rejected_at("add r255, r1, r2; ret r0"), 0);
	CHECK_EQ(rejected_at("nop; nop; nop; ldx8 r16, r1, 0; ret r0"), 3);
	CHECK_EQ(rejected_at("ldi r15, 1; ret r15"), UINT32_MAX);
}

TEST(verify_rejects_bad_rs1)
{
	CHECK_EQ(rejected_at("nop; mov r0, r16; ret r0"), 1);
	CHECK_EQ(rejected_at("sub r0, r200, r1; ret r0"), 0);
	CHECK_EQ(rejected_at("nop; bz r16, 2; ret r0"), 1);
	CHECK_EQ(rejected_at("ldargr r1, r16; ret r0"), 0);
	CHECK_EQ(rejected_at("ret r16"), 0);
}

TEST(verify_rejects_bad_rs2)
{
	CHECK_EQ(rejected_at("nop; nop; sltu r0, r1, r16; ret r0"), 2);
	CHECK_EQ(rejected_at("xor r0, r1, r99; ret r0"), 0);
}

TEST(verify_ignores_register_fields_an_opcode_does_not_use)
{
	/* ldi has no rs1/rs2, ret no rd/rs2, ba no registers at all */
	const char *src = fmt("raw %d 1 200 200 5; raw %d 99 99 99 2; raw %d 77 1 250 0",
			      UDT_OP_LDI, UDT_OP_BA, UDT_OP_RET);

	CHECK_EQ(rejected_at(src), UINT32_MAX);
	CHECK_EQ(eval(src), 5);
}

TEST(verify_rejects_bad_constant_index)
{
	CHECK_EQ(rejected_at(".const 1; .const 2; nop; ldc r0, 2; ret r0"), 1);
	CHECK_EQ(rejected_at("ldc r0, 0; ret r0"), 0);
	CHECK_EQ(rejected_at(".const 1; ldc r0, -1; ret r0"), 0);
	CHECK_EQ(rejected_at(".const 1; .const 2; ldc r0, 1; ret r0"), UINT32_MAX);
}

TEST(verify_rejects_bad_string_index)
{
	CHECK_EQ(rejected_at(".str abc; nop; lds r0, 4; ret r0"), 1);
	CHECK_EQ(rejected_at("lds r0, 0; ret r0"), 0); /* no string table at all */
	CHECK_EQ(rejected_at(".str abc; lds r0, -1; ret r0"), 0);
	CHECK_EQ(rejected_at(".str abc; lds r0, 3; ret r0"), UINT32_MAX);
}

TEST(verify_rejects_bad_argument_index)
{
	CHECK_EQ(rejected_at(fmt("nop; ldarg r0, %d; ret r0", UDT_DIFO_MAX_ARGS)), 1);
	CHECK_EQ(rejected_at("ldarg r0, -1; ret r0"), 0);
	CHECK_EQ(rejected_at(fmt("ldarg r0, %d; ret r0", UDT_DIFO_MAX_ARGS - 1)), UINT32_MAX);
}

TEST(verify_rejects_bad_variable)
{
	CHECK_EQ(rejected_at(fmt("nop; nop; ldvar r0, %d; ret r0", UDT_VAR_CNT)), 2);
	CHECK_EQ(rejected_at("ldvar r0, -1; ret r0"), 0);
	CHECK_EQ(rejected_at(fmt("ldvar r0, %d; ret r0", UDT_VAR_CNT - 1)), UINT32_MAX);
}

TEST(verify_rejects_bad_extension_width)
{
	CHECK_EQ(rejected_at("nop; sext r0, r0, 0; ret r0"), 1);
	CHECK_EQ(rejected_at("sext r0, r0, 65; ret r0"), 0);
	CHECK_EQ(rejected_at("nop; zext r0, r0, 0; ret r0"), 1);
	CHECK_EQ(rejected_at("zext r0, r0, 65; ret r0"), 0);
	CHECK_EQ(rejected_at("zext r0, r0, -8; ret r0"), 0);
	CHECK_EQ(rejected_at("sext r0, r0, 1; zext r0, r0, 64; sext r0, r0, 64; zext r0, r0, 1;"
			     "ret r0"),
		 UINT32_MAX);
}

TEST(verify_rejects_branch_not_forward)
{
	static const char *const ops[] = { "ba", "bz r1,", "bnz r1," };

	for (size_t i = 0; i < 3; i++) {
		CHECK_EQ(rejected_at(fmt("nop; %s 1; ret r0", ops[i])), 1); /* itself */
		CHECK_EQ(rejected_at(fmt("nop; %s 0; ret r0", ops[i])), 1); /* backward */
		CHECK_EQ(rejected_at(fmt("nop; %s -1; ret r0", ops[i])), 1); /* negative */
		CHECK_EQ(rejected_at(fmt("nop; %s 2; ret r0", ops[i])), UINT32_MAX);
	}
}

TEST(verify_rejects_branch_past_the_end)
{
	static const char *const ops[] = { "ba", "bz r1,", "bnz r1," };

	for (size_t i = 0; i < 3; i++) {
		CHECK_EQ(rejected_at(fmt("%s 2; ret r0", ops[i])), 0); /* == insn_cnt */
		CHECK_EQ(rejected_at(fmt("nop; %s 2147483647; ret r0", ops[i])), 1);
	}
}

TEST(verify_rejects_falling_off_the_end)
{
	CHECK_EQ(rejected_at("ldi r0, 1"), 0);
	CHECK_EQ(rejected_at("ldi r0, 1; ret r0; nop"), 2);
	CHECK_EQ(rejected_at("ldi r0, 1; bz r0, 3; ret r0; mov r1, r0"), 3);
	/* a conditional branch last can only go past the end */
	CHECK_EQ(rejected_at("ldi r0, 1; ret r0; bnz r0, 3"), 2);
	CHECK_EQ(rejected_at("ret r0; ret r1"), UINT32_MAX);
}

/* -- A measurement, not an assertion ------------------------------------------------------- */

TEST(measure_ns_per_run_of_a_predicate)
{
	/* (arg0 > 5 && pid == 4242) & arg1: ten instructions, no loads */
	AUTO_DIFO b = assemble(fmt("ldarg r1, 0; ldi r2, 5; sltu r3, r2, r1; ldvar r4, %d;"
				   "ldi r5, 4242; seq r6, r4, r5; and r7, r3, r6; ldarg r8, 1;"
				   "and r0, r7, r8; ret r0",
				   UDT_VAR_PID));
	struct udt_vm_ctx ctx = test_ctx();
	const int n = 2000000;
	volatile uint64_t sink = 0;
	uint64_t v = 0, t0, t1;

	REQUIRE_EQ(hdr(&b)->insn_cnt, 10);
	REQUIRE_EQ(udt_difo_verify(hdr(&b), b.sz, NULL), 0);
	REQUIRE_EQ(udt_difo_run(hdr(&b), &ctx, &v), 0);
	CHECK_EQ(v, 0); /* 1 & 20 */
	t0 = clock_now(CLOCK_MONOTONIC);
	for (int i = 0; i < n; i++) {
		udt_difo_run(hdr(&b), &ctx, &v);
		sink += v;
	}
	t1 = clock_now(CLOCK_MONOTONIC);
	(void)sink;
	printf("# vm: %.1f ns per run of a 10-instruction predicate (%d runs)\n",
	       (double)(t1 - t0) / n, n);
}

TEST(nregs_limits_the_registers_a_difo_may_name)
{
	AUTO_DIFO b = assemble("ldi r1, 5; ret r1");
	uint32_t bad = UINT32_MAX;
	uint64_t v = 0;
	struct udt_vm_ctx c = { 0 };

	hdr(&b)->nregs = 2;
	CHECK_EQ(udt_difo_verify(hdr(&b), b.sz, &bad), 0);
	CHECK_EQ(udt_difo_run(hdr(&b), &c, &v), 0);
	CHECK_EQ(v, 5);
	hdr(&b)->nregs = 1; /* r1 is beyond it */
	CHECK_EQ(udt_difo_verify(hdr(&b), b.sz, &bad), -EINVAL);
	CHECK_EQ(bad, 0);
	hdr(&b)->nregs = 17;
	CHECK_EQ(udt_difo_verify(hdr(&b), b.sz, &bad), -EINVAL);
}

TEST(registers_within_nregs_start_at_zero)
{
	AUTO_DIFO b = assemble("add r0, r1, r2; ret r0");
	uint64_t v = 1;
	struct udt_vm_ctx c = { 0 };

	hdr(&b)->nregs = 3;
	REQUIRE_EQ(udt_difo_verify(hdr(&b), b.sz, NULL), 0);
	CHECK_EQ(udt_difo_run(hdr(&b), &c, &v), 0);
	CHECK_EQ(v, 0);
}

/* -- Strings, subroutines, dynamic variables (vm/vm_str.c, vm/dynvar.c) ---------- */

/* A fire's memory as the runtime gives it: strsize 16, 2 string slots per scope, a scratch
   space, a dynamic variable space. */
struct mem_fixture {
	uint8_t tlocal[4096];
	uint8_t gstrs[2 * 24];
	uint64_t dyn[4096 / 8];
	struct udt_vm_mem m;
};

static struct mem_fixture *mem_new(void)
{
	struct mem_fixture *f = calloc(1, sizeof(*f));
	uint32_t slot = (uint32_t)udt_str_slot(16);

	if (!f)
		abort();
	f->m = (struct udt_vm_mem){ .strsize = 16, .slot_sz = slot, .tstrs = f->tlocal,
				    .ntstrs = 2, .lstrs = f->tlocal + 2 * slot, .nlstrs = 2,
				    .gstrs = f->gstrs, .ngstrs = 2, .scratch = f->tlocal + 4 * slot,
				    .scratch_sz = 256, .dyn = (struct udt_dynhdr *)f->dyn,
				    .dyn_sz = sizeof(f->dyn), .thread_key = 5 };
	f->m.own[0] = (struct udt_vm_region){ f->tlocal, sizeof(f->tlocal) };
	f->m.own[1] = (struct udt_vm_region){ f->gstrs, sizeof(f->gstrs) };
	f->m.own[2] = (struct udt_vm_region){ (uint8_t *)f->dyn, sizeof(f->dyn) };
	f->m.nown = 3;
	/* elements of (header, variable, one string key, a string value) */
	if (udt__dyn_init(f->m.dyn, sizeof(f->dyn), sizeof(struct udt_dynvar) + 8 + 16 + 16))
		abort();
	return f;
}

/* Run src with memory f: 0 with *v, or the fault. */
static uint32_t mem_run(struct mem_fixture *f, const char *src, uint64_t *v, uint64_t *addr)
{
	AUTO_DIFO b = assemble(src);
	struct udt_vm_ctx ctx = test_ctx();
	uint32_t bad = 0;

	ctx.mem = f ? &f->m : NULL;
	if (!CHECK_EQ(udt_difo_verify(hdr(&b), b.sz, &bad), 0))
		return UINT32_MAX;
	if (udt_difo_run(hdr(&b), &ctx, v) == 0)
		return 0;
	*addr = ctx.fault_addr;
	return ctx.fault;
}

TEST(verify_call_checks_the_subroutine_and_its_arguments)
{
	CHECK_EQ(rejected_at(fmt("call r0, r0, r1, %d; ret r0", UDT_CALL_STRLEN)), UINT32_MAX);
	CHECK_EQ(rejected_at(fmt("nop; call r0, r0, r2, %d; ret r0", UDT_CALL_STRLEN)), 1);
	CHECK_EQ(rejected_at(fmt("call r0, r0, r1, %d; ret r0", UDT_CALL_STRJOIN)), 0);
	CHECK_EQ(rejected_at(fmt("call r0, r0, r3, %d; ret r0", UDT_CALL_SUBSTR)), UINT32_MAX);
	CHECK_EQ(rejected_at(fmt("call r0, r0, r4, %d; ret r0", UDT_CALL_SUBSTR)), 0);
	CHECK_EQ(rejected_at(fmt("call r0, r0, r1, %d; ret r0", UDT_CALL_CNT)), 0);
	CHECK_EQ(rejected_at("call r0, r0, r1, -1; ret r0"), 0);
	/* the arguments' registers must exist: r15 and one more does not */
	CHECK_EQ(rejected_at(fmt("call r0, r15, r2, %d; ret r0", UDT_CALL_STRJOIN)), 0);
	CHECK_EQ(rejected_at(fmt("call r0, r14, r2, %d; ret r0", UDT_CALL_STRJOIN)), UINT32_MAX);
	CHECK_EQ(rejected_at(fmt("call r16, r0, r1, %d; ret r0", UDT_CALL_STRLEN)), 0);
}

TEST(verify_dynamic_variable_access_checks_keys_and_flags)
{
	CHECK_EQ(rejected_at("lddv r0, r0, r1, 0; ret r0"), UINT32_MAX);
	CHECK_EQ(rejected_at("lddv r0, r0, r0, 0; ret r0"), 0);           /* no key */
	CHECK_EQ(rejected_at("stdv r0, r0, r9, 0; ret r0"), 0);           /* nine keys */
	CHECK_EQ(rejected_at("stdv r0, r8, r8, 0; ret r0"), UINT32_MAX);
	CHECK_EQ(rejected_at("stdv r0, r9, r8, 0; ret r0"), 0);           /* r16 */
	CHECK_EQ(rejected_at("lddv r0, r0, r1, -1; ret r0"), 0);
	CHECK_EQ(rejected_at(fmt("lddv r0, r0, r1, %d; ret r0", UDT_DV_STRVAL | UDT_DV_THREAD |
							     (1 << UDT_DV_STRKEYS_SHIFT))),
		 UINT32_MAX);
	CHECK_EQ(rejected_at(fmt("lddv r0, r0, r1, %d; ret r0", 0x8000000)), 0); /* unknown flag */
	/* bytes: not a string too; STDV's size after the keys, in a register it has */
	CHECK_EQ(rejected_at(fmt("lddv r0, r0, r1, %d; ret r0", UDT_DV_REFVAL)), UINT32_MAX);
	CHECK_EQ(rejected_at(fmt("lddv r0, r0, r1, %d; ret r0", UDT_DV_REFVAL | UDT_DV_STRVAL)), 0);
	CHECK_EQ(rejected_at(fmt("stdv r0, r14, r1, %d; ret r0", UDT_DV_REFVAL)), UINT32_MAX);
	CHECK_EQ(rejected_at(fmt("stdv r0, r15, r1, %d; ret r0", UDT_DV_REFVAL)), 0);
	CHECK_EQ(rejected_at("ldts r0, -1; ret r0"), 0);
	CHECK_EQ(rejected_at("stgs r16, 0; ret r0"), 0);
}

TEST(subroutines_run_on_strings_of_the_string_table)
{
	struct mem_fixture *f = mem_new();
	uint64_t v = 0, addr = 0;

	CHECK_EQ(mem_run(f, fmt(".str hello; lds r0, 0; call r0, r0, r1, %d; ret r0",
				UDT_CALL_STRLEN), &v, &addr), 0);
	CHECK_EQ(v, 5);
	CHECK_EQ(mem_run(f, fmt(".str ab; .str cd; lds r0, 0; lds r1, 3; call r0, r0, r2, %d; ret r0",
				UDT_CALL_STRJOIN), &v, &addr), 0);
	CHECK_STR((const char *)(uintptr_t)v, "abcd");
	CHECK(v >= (uintptr_t)f->m.scratch && v < (uintptr_t)f->m.scratch + f->m.scratch_sz);
	CHECK_EQ(mem_run(f, fmt(".str foobar; lds r0, 0; ldi r1, -3; ldi r2, 2; call r0, r0, r3, %d; ret r0",
				UDT_CALL_SUBSTR), &v, &addr), 0);
	CHECK_STR((const char *)(uintptr_t)v, "ba");
	free(f);
}

TEST(subroutines_fault_without_scratch_or_beyond_it)
{
	struct mem_fixture *f = mem_new();
	uint64_t v = 0, addr = 0;

	/* no memory for strings in the session: nowhere to put a result */
	CHECK_EQ(mem_run(NULL, fmt(".str x; lds r0, 0; call r0, r0, r1, %d; ret r0",
				   UDT_CALL_TOUPPER), &v, &addr), UDT_FAULT_NOSCRATCH);
	/* alloca() past the scratch space, and a size that would wrap */
	CHECK_EQ(mem_run(f, fmt("ldi r0, 257; call r0, r0, r1, %d; ret r0", UDT_CALL_ALLOCA), &v,
			 &addr), UDT_FAULT_NOSCRATCH);
	CHECK_EQ(mem_run(f, fmt("ldi r0, -1; call r0, r0, r1, %d; ret r0", UDT_CALL_ALLOCA), &v,
			 &addr), UDT_FAULT_NOSCRATCH);
	/* strjoin() beyond strsize - 1 (16 here), as DTrace */
	CHECK_EQ(mem_run(f, fmt(".str 0123456789; lds r0, 0; lds r1, 0; call r0, r0, r2, %d; ret r0",
				UDT_CALL_STRJOIN), &v, &addr), UDT_FAULT_NOSCRATCH);
	free(f);
}

TEST(subroutines_read_the_process_fault_safe)
{
	struct mem_fixture *f = mem_new();
	uint64_t v = 0, addr = 0;
	long pg = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	REQUIRE(p != MAP_FAILED);
	memset(p, 'A', pg);
	mprotect(p + pg, pg, PROT_NONE);
	/* NULL */
	CHECK_EQ(mem_run(f, fmt("ldi r0, 0; call r0, r0, r1, %d; ret r0", UDT_CALL_STRLEN), &v,
			 &addr), UDT_FAULT_BADADDR);
	CHECK_EQ(addr, 0);
	/* a string that runs into a PROT_NONE page: the fault names the page */
	uint64_t at = (uint64_t)(uintptr_t)(p + pg - 4);
	char src[160];
	snprintf(src, sizeof(src), ".const %llu; ldc r0, 0; call r0, r0, r1, %d; ret r0",
		 (unsigned long long)at, UDT_CALL_STRLEN);
	CHECK_EQ(mem_run(f, src, &v, &addr), UDT_FAULT_BADADDR);
	CHECK_EQ(addr, at + 4);
	/* ... but four bytes of it can be copied in, and a bounded copyinstr() too */
	snprintf(src, sizeof(src), ".const %llu; ldc r0, 0; ldi r1, 4; call r0, r0, r2, %d; ret r0",
		 (unsigned long long)at, UDT_CALL_COPYIN);
	CHECK_EQ(mem_run(f, src, &v, &addr), 0);
	CHECK_EQ(memcmp((const void *)(uintptr_t)v, "AAAA", 4), 0);
	snprintf(src, sizeof(src), ".const %llu; ldc r0, 0; ldi r1, 3; call r0, r0, r2, %d; ret r0",
		 (unsigned long long)at, UDT_CALL_COPYINSTR);
	CHECK_EQ(mem_run(f, src, &v, &addr), 0);
	CHECK_STR((const char *)(uintptr_t)v, "AAA");
	/* bcopy() writes only into alloca()'s memory */
	snprintf(src, sizeof(src), ".const %llu; ldc r0, 0; ldc r1, 0; ldi r2, 1; call r0, r0, r3, %d; "
		 "ret r0", (unsigned long long)at, UDT_CALL_BCOPY);
	CHECK_EQ(mem_run(f, src, &v, &addr), UDT_FAULT_BADADDR);
	CHECK_EQ(addr, at);
	munmap(p, 2 * pg);
	free(f);
}

TEST(string_variables_copy_and_unset)
{
	struct mem_fixture *f = mem_new();
	uint64_t v = 0, addr = 0;

	/* unset: NULL */
	CHECK_EQ(mem_run(f, "ldts r0, 1; ret r0", &v, &addr), 0);
	CHECK_EQ(v, 0);
	/* stored (cut at strsize - 1), then read back from the variable's own slot */
	CHECK_EQ(mem_run(f, ".str 0123456789abcdefXYZ; lds r0, 0; stts r0, 1; ldts r1, 1; ret r1", &v,
			 &addr), 0);
	CHECK_STR((const char *)(uintptr_t)v, "0123456789abcde");
	CHECK_EQ(mem_run(f, "ldi r0, 0; stgs r0, 0; ldgs r0, 0; ret r0", &v, &addr), 0);
	CHECK_EQ(v, 0);
	CHECK_EQ(mem_run(f, "ldts r0, 2; ret r0", &v, &addr), UDT_FAULT_BADVAR);
	CHECK_EQ(mem_run(NULL, "ldls r0, 0; ret r0", &v, &addr), UDT_FAULT_BADVAR);
	free(f);
}

TEST(dynamic_variables_store_load_delete)
{
	struct mem_fixture *f = mem_new();
	uint64_t v = 0, addr = 0;
	int strkey = 1 << UDT_DV_STRKEYS_SHIFT;

	CHECK_EQ(mem_run(f, fmt(".str k; lds r1, 0; lddv r0, r1, r1, %d; ret r0", 3 | strkey), &v,
			 &addr), 0);
	CHECK_EQ(v, 0); /* absent */
	CHECK_EQ(mem_run(f, fmt(".str k; lds r1, 0; ldi r0, 42; stdv r0, r1, r1, %d; lddv r2, r1, r1, %d; "
				"ret r2", 3 | strkey, 3 | strkey), &v, &addr), 0);
	CHECK_EQ(v, 42);
	/* another variable, or the thread-local one, does not see it */
	CHECK_EQ(mem_run(f, fmt(".str k; lds r1, 0; lddv r0, r1, r1, %d; ret r0", 4 | strkey), &v,
			 &addr), 0);
	CHECK_EQ(v, 0);
	CHECK_EQ(mem_run(f, fmt(".str k; lds r1, 0; lddv r0, r1, r1, %d; ret r0",
				3 | strkey | UDT_DV_THREAD), &v, &addr), 0);
	CHECK_EQ(v, 0);
	CHECK_EQ(f->m.dyn->dirty, 0);
	CHECK_EQ(mem_run(f, fmt(".str k; lds r1, 0; ldi r0, 0; stdv r0, r1, r1, %d; lddv r0, r1, r1, %d; "
				"ret r0", 3 | strkey, 3 | strkey), &v, &addr), 0);
	CHECK_EQ(v, 0);
	CHECK_EQ(f->m.dyn->dirty, 1); /* deleted, for the cleaner */
	/* a string value, and a key too long for the elements */
	CHECK_EQ(mem_run(f, fmt(".str k; .str value; lds r1, 0; lds r0, 2; stdv r0, r1, r1, %d; "
				"lddv r0, r1, r1, %d; ret r0", 3 | strkey | UDT_DV_STRVAL,
				3 | strkey | UDT_DV_STRVAL), &v, &addr), 0);
	CHECK_STR((const char *)(uintptr_t)v, "value");
	CHECK_EQ(mem_run(f, fmt("lddv r0, r0, r2, %d; ret r0", 3 | strkey | 2 * strkey), &v, &addr),
		 UDT_FAULT_BADVAR);
	CHECK_EQ(mem_run(NULL, "lddv r0, r0, r1, 0; ret r0", &v, &addr), UDT_FAULT_BADVAR);
	free(f);
}

TEST(dynamic_variables_drop_when_full_and_clean)
{
	struct mem_fixture *f = mem_new();
	uint64_t v = 0, addr = 0;
	uint32_t cnt = f->m.dyn->chunk_cnt, idx[256];

	REQUIRE(cnt < 200);
	for (uint32_t i = 0; i <= cnt; i++)
		CHECK_EQ(mem_run(f, fmt("ldi r1, %u; ldi r0, 1; stdv r0, r1, r1, 0; ret r0", i), &v,
				 &addr), 0);
	CHECK_EQ(f->m.dyn->drops, 1);
	/* delete one: the next new key is a drop "with non-empty dirty list" */
	CHECK_EQ(mem_run(f, "ldi r1, 0; ldi r0, 0; stdv r0, r1, r1, 0; ret r0", &v, &addr), 0);
	CHECK_EQ(mem_run(f, "ldi r1, 1000; ldi r0, 1; stdv r0, r1, r1, 0; ret r0", &v, &addr), 0);
	CHECK_EQ(f->m.dyn->dirty_drops, 1);
	/* cleaned (no thread to wait for here), the element takes the new key */
	CHECK_EQ(udt__dyn_unlink(f->m.dyn, NULL, sizeof(f->dyn), idx, 256), 1);
	udt__dyn_release(f->m.dyn, NULL, sizeof(f->dyn), idx, 1);
	CHECK_EQ(mem_run(f, "ldi r1, 1000; ldi r0, 7; stdv r0, r1, r1, 0; lddv r0, r1, r1, 0; ret r0",
			 &v, &addr), 0);
	CHECK_EQ(v, 7);
	CHECK_EQ(mem_run(f, "ldi r1, 5; lddv r0, r1, r1, 0; ret r0", &v, &addr), 0);
	CHECK_EQ(v, 1);
	free(f);
}

TEST(variables_of_bytes_and_stores_write_d_memory_only)
{
	struct mem_fixture *f = mem_new();
	uint64_t v = 0, addr = 0;
	uint32_t slot = (uint32_t)udt_str_slot(16);

	/* a variable's bytes: after its slot's set word; a slot beyond the session's faults */
	CHECK_EQ(mem_run(f, "ldta r0, 1; ret r0", &v, &addr), 0);
	CHECK_EQ(v, (uint64_t)(uintptr_t)(f->tlocal + slot + 8));
	CHECK_EQ(mem_run(f, "ldga r0, 0; ret r0", &v, &addr), 0);
	CHECK_EQ(v, (uint64_t)(uintptr_t)(f->gstrs + 8));
	CHECK_EQ(mem_run(f, "ldla r0, 2; ret r0", &v, &addr), UDT_FAULT_BADVAR);
	CHECK_EQ(mem_run(NULL, "ldga r0, 0; ret r0", &v, &addr), UDT_FAULT_BADVAR);
	/* stores into a variable, read back; the value's low bytes only */
	CHECK_EQ(mem_run(f, "ldga r0, 0; ldc r1, 0; stx32 r0, r1, 4; stx8 r0, r1, 0; "
			    "ldx64 r2, r0, 0; ret r2; .const 0x1122334455667788", &v, &addr), 0);
	CHECK_EQ(v, 0x5566778800000088ull);
	/* the last bytes of the last global slot, not one past them */
	CHECK_EQ(mem_run(f, fmt("ldga r0, 1; ldi r1, 7; stx64 r0, r1, %u; ret r1", slot - 16), &v,
			 &addr), 0);
	CHECK_EQ(mem_run(f, fmt("ldga r0, 1; ldi r1, 7; stx64 r0, r1, %u; ret r1", slot - 15), &v,
			 &addr), UDT_FAULT_BADADDR);
	CHECK_EQ(addr, (uint64_t)(uintptr_t)(f->gstrs + 2 * slot - 7));
	/* alloca()'s memory, as far as it was taken */
	CHECK_EQ(mem_run(f, fmt("ldi r0, 8; call r0, r0, r1, %d; ldi r1, 9; stx64 r0, r1, 0; "
				"ldx64 r2, r0, 0; ret r2", UDT_CALL_ALLOCA), &v, &addr), 0);
	CHECK_EQ(v, 9);
	CHECK_EQ(mem_run(f, fmt("ldi r0, 8; call r0, r0, r1, %d; ldi r1, 9; stx8 r0, r1, 8; ret r1",
				UDT_CALL_ALLOCA), &v, &addr), UDT_FAULT_BADADDR);
	/* never the process's memory, nor the DIFO's own */
	static uint64_t app;
	CHECK_EQ(mem_run(f, fmt("ldc r0, 0; ldi r1, 1; stx64 r0, r1, 0; ret r1; .const %llu",
				(unsigned long long)(uintptr_t)&app), &v, &addr), UDT_FAULT_BADADDR);
	CHECK_EQ(app, 0);
	CHECK_EQ(mem_run(f, ".str abc; lds r0, 0; ldi r1, 1; stx8 r0, r1, 0; ret r1", &v, &addr),
		 UDT_FAULT_BADADDR);
	CHECK_EQ(mem_run(NULL, "ldi r0, 0; stx8 r0, r0, 0; ret r0", &v, &addr), UDT_FAULT_BADADDR);
	free(f);
}

