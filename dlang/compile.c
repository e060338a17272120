/* SPDX-License-Identifier: MIT */
/*
 * Compiling D expressions to bytecode (abi/bytecode.h).
 *
 * One expression (a predicate, or the argument of an action) is compiled for
 * one probe at a time: the probe variables (probeprov, probemod, probefunc,
 * probename) and execname are constants of that probe, so they fold away;
 * args[] takes its types from the probe's definition. What is left runs in
 * the target at fire time.
 *
 * Code generation is a recursive walk that returns a value descriptor: a
 * compile-time constant (nothing emitted; folded with the operators' C
 * semantics) or a register. Registers are allocated as a stack: an
 * operand's subexpressions use the registers above it, so an expression
 * needs as many registers as its depth, and a deeper one is refused. Integer
 * values are kept in 64-bit registers normalized to their type (sign- or
 * zero-extended from its width) after every operation, so that comparisons,
 * divisions and shifts can work on whole registers. && || ?: branch forward
 * only, as the verifier requires.
 *
 * This is the subset issue #3 needs: integer arithmetic, comparisons and
 * logic over arguments, builtins and constants, casts to integer types, and
 * constant strings. Variables, strings in memory, translators and
 * subroutines come with the D language (issue #4).
 */
#include "dlang/cg.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

_Noreturn void cg_error(struct cg *g, const struct dl_node *n, const char *fmt, ...)
{
	struct udt_strbuf sb = { 0 };
	va_list ap;

	if (n && n->loc.file)
		udt__sb_printf(&sb, "%s:%d:%d: error: ", n->loc.file, n->loc.line, n->loc.col);
	else
		udt__sb_puts(&sb, "error: ");
	va_start(ap, fmt);
	udt__sb_vprintf(&sb, fmt, ap);
	va_end(ap);
	g->err = udt__sb_take(&sb);
	longjmp(g->jb, 1);
}

size_t emit(struct cg *g, uint8_t op, int rd, int rs1, int rs2, int32_t imm)
{
	struct udt_insn in = { op, (uint8_t)rd, (uint8_t)rs1, (uint8_t)rs2, imm };

	/* (unused register fields are 0, so this is the highest register named) */
	if (rd > g->max_reg)
		g->max_reg = rd;
	if (rs1 > g->max_reg)
		g->max_reg = rs1;
	if (rs2 > g->max_reg)
		g->max_reg = rs2;

	if (g->n >= UDT_DIFO_MAX_INSNS)
		cg_error(g, NULL, "expression is too large to compile");
	UDT__PUSH(g->insns, g->n, g->cap, in);
	return g->n - 1;
}

void patch_target(struct cg *g, size_t at)
{
	g->insns[at].imm = (int32_t)g->n;
}

struct dl_qtype named(struct cg *g, const char *name)
{
	return (struct dl_qtype){ dl_lookup_typedef(g->p, name), 0 };
}

/* -- Types ------------------------------------------------------------------------- */

bool is_int(struct dl_qtype t)
{
	return dl_type_argclass(t) == DL_ARG_INT;
}

bool is_ptr(struct dl_qtype t)
{
	struct dl_qtype r = dl_type_resolve(t);

	return r.t->kind == DL_PTR || r.t->kind == DL_ARRAY;
}

bool is_str(struct dl_qtype t)
{
	return dl_type_resolve(t).t->kind == DL_STRING;
}

bool dl_cg_is_float(struct dl_qtype t)
{
	struct dl_qtype r = dl_type_resolve(t);

	return r.t->kind == DL_FLOAT && (r.t->size == 4 || r.t->size == 8);
}

unsigned width(struct dl_qtype t)
{
	struct dl_qtype r = dl_type_resolve(t);

	if (r.t->kind == DL_ENUM)
		return 32;
	return r.t->size ? (unsigned)r.t->size * 8 : 64;
}

bool is_signed(struct dl_qtype t)
{
	struct dl_qtype r = dl_type_resolve(t);

	if (r.t->kind == DL_ENUM)
		return true;
	return r.t->kind == DL_INT && r.t->is_signed;
}

unsigned dl_type_trace_size(struct dl_qtype qt, bool *ret_signed)
{
	/* (a float is recorded as its 4 bytes, as DTrace's, and trace() prints them so) */
	unsigned w = is_int(qt) || dl_cg_is_float(qt) ? width(qt) / 8 : 8;

	*ret_signed = is_int(qt) && is_signed(qt);
	return w == 1 || w == 2 || w == 4 ? w : 8;
}

/* C's integer promotion, then the usual arithmetic conversions of a and b. */
struct dl_qtype promote(struct cg *g, struct dl_qtype t)
{
	if (width(t) < 32)
		return named(g, "int");
	return (struct dl_qtype){ dl_type_resolve(t).t, 0 };
}

static struct dl_qtype arith_type(struct cg *g, struct dl_qtype a, struct dl_qtype b)
{
	a = promote(g, a);
	b = promote(g, b);
	if (is_ptr(a))
		return a;
	if (is_ptr(b))
		return b;
	if (width(a) != width(b))
		return width(a) > width(b) ? a : b;
	if (!is_signed(a))
		return a;
	return b;
}

/* Normalize a 64-bit value to type t: sign- or zero-extension from its width. */
int64_t norm_const(struct dl_qtype t, int64_t v)
{
	unsigned w = width(t);

	if (w >= 64 || !is_int(t))
		return v;
	uint64_t mask = (1ull << w) - 1, u = (uint64_t)v & mask;
	if (is_signed(t) && (u >> (w - 1)))
		u |= ~mask;
	return (int64_t)u;
}

void norm_reg(struct cg *g, struct dl_qtype t, int r)
{
	unsigned w = width(t);

	if (w >= 64 || !is_int(t))
		return;
	emit(g, is_signed(t) ? UDT_OP_SEXT : UDT_OP_ZEXT, r, r, 0, (int32_t)w);
}

void materialize(struct cg *g, struct val *v, int r, const struct dl_node *n)
{
	if (r >= UDT_DIFO_REGS)
		cg_error(g, n, "expression is too deeply nested");
	if (v->cstr) {
		emit(g, UDT_OP_LDS, r, 0, 0, dl_cg_strtab(g, v->cstr, n));
		v->cstr = NULL;
	} else if (v->strref) {
		/* (a string of the process is made a D string by dl_cg_dstr() first) */
		cg_error(g, n, "this use of a string of the process is not supported");
	} else if (v->xl) {
		cg_error(g, n, "a translated %s must be used through its members",
			 dl_type_cdecl(g->p, v->type, NULL));
	} else if (v->is_const) {
		if (v->cval >= INT32_MIN && v->cval <= INT32_MAX) {
			emit(g, UDT_OP_LDI, r, 0, 0, (int32_t)v->cval);
		} else {
			UDT__PUSH(g->consts, g->nc, g->capc, (uint64_t)v->cval);
			emit(g, UDT_OP_LDC, r, 0, 0, (int32_t)(g->nc - 1));
		}
	} else if (v->reg != r) {
		emit(g, UDT_OP_MOV, r, v->reg, 0, 0);
	}
	v->is_const = false;
	v->reg = r;
}

struct val constant(struct dl_qtype t, int64_t v)
{
	return (struct val){ .type = t, .is_const = true, .cval = norm_const(t, v), .reg = -1 };
}

/* The result of an operator, folded in 64 bits as DTrace folds it: not narrowed to t. */
static struct val wide_constant(struct dl_qtype t, int64_t v)
{
	return (struct val){ .type = t, .is_const = true, .cval = v, .reg = -1 };
}

/*
 * Convert operand v (in r) to type t as C's usual arithmetic conversions do:
 * a value of the other signedness is re-extended at t's width. A value of
 * t's own signedness is left as it is, wider bits included: D computes in
 * 64 bits and narrows only where a value is stored or cast.
 */
static bool converts(struct cg *g, const struct val *v, struct dl_qtype t)
{
	return width(t) < 64 && is_int(t) && is_signed(promote(g, v->type)) != is_signed(t);
}

/* A constant operand converted to t. */
static void convert_const(struct cg *g, struct val *v, struct dl_qtype t)
{
	if (v->is_const && converts(g, v, t))
		v->cval = norm_const(t, v->cval);
}

/* Operands a and b of an operator of type t in r and r + 1, converted to t (b unless !conv_b). */
static void operands(struct cg *g, struct val *a, struct val *b, struct dl_qtype t, bool conv_b,
		     int r, const struct dl_node *n)
{
	bool ca = !a->is_const && converts(g, a, t), cb = conv_b && !b->is_const &&
							  converts(g, b, t);

	convert_const(g, a, t);
	if (conv_b)
		convert_const(g, b, t);
	materialize(g, a, r, n);
	materialize(g, b, r + 1, n);
	if (ca)
		norm_reg(g, t, r);
	if (cb)
		norm_reg(g, t, r + 1);
}

struct val gen(struct cg *g, const struct dl_node *n, int r);

/* The input of a translation, in r, of its type. */
static struct val gen_xin(struct cg *g, const struct xin *in, int r, const struct dl_node *at)
{
	if (in->node) {
		struct val v = gen(g, in->node, r);
		if (in->type.t && !v.is_const) {
			materialize(g, &v, r, at);
			v.type = in->type;
		}
		return v;
	}
	if (r >= UDT_DIFO_REGS)
		cg_error(g, at, "expression is too deeply nested");
	emit(g, UDT_OP_LDARG, r, 0, 0, in->arg);
	return (struct val){ .type = in->type, .reg = r };
}

/* -- Identifiers: builtins and probe variables ----------------------------------------- */

struct val string_const(struct cg *g, const char *s)
{
	return (struct val){ .type = named(g, "string"), .is_const = true,
			     .cstr = s ? s : "", .reg = -1 };
}

/* D's builtin variables that the runtime gives (LDVAR). */
static const struct {
	const char *name;
	int var;
	const char *type;
} builtins[] = {
	{ "timestamp", UDT_VAR_TIMESTAMP, "uint64_t" },
	{ "walltimestamp", UDT_VAR_WALLTIMESTAMP, "int64_t" },
	{ "vtimestamp", UDT_VAR_VTIMESTAMP, "uint64_t" },
	{ "pid", UDT_VAR_PID, "pid_t" },
	{ "tid", UDT_VAR_TID, "id_t" },
	{ "cpu", UDT_VAR_CPU, "int" },
	{ "epid", UDT_VAR_EPID, "uint32_t" },
	{ "errno", UDT_VAR_ERRNO, "int" },
	{ "ppid", UDT_VAR_PPID, "pid_t" },
	{ "uid", UDT_VAR_UID, "uid_t" },
	{ "gid", UDT_VAR_GID, "gid_t" },
};

/* uregs[]'s indexes by D's names (DTrace's regs.d), for this machine's registers. */
static const struct {
	const char *name;
	int reg;
} uregs[] = {
#if defined(__aarch64__)
	{ "R_X0", 0 }, { "R_X1", 1 }, { "R_X2", 2 }, { "R_X3", 3 }, { "R_X4", 4 }, { "R_X5", 5 },
	{ "R_X6", 6 }, { "R_X7", 7 }, { "R_X8", 8 }, { "R_X9", 9 }, { "R_X10", 10 },
	{ "R_X11", 11 }, { "R_X12", 12 }, { "R_X13", 13 }, { "R_X14", 14 }, { "R_X15", 15 },
	{ "R_X16", 16 }, { "R_X17", 17 }, { "R_X18", 18 }, { "R_X19", 19 }, { "R_X20", 20 },
	{ "R_X21", 21 }, { "R_X22", 22 }, { "R_X23", 23 }, { "R_X24", 24 }, { "R_X25", 25 },
	{ "R_X26", 26 }, { "R_X27", 27 }, { "R_X28", 28 }, { "R_X29", 29 }, { "R_X30", 30 },
	{ "R_SP", UDT_UREG_SP }, { "R_PC", UDT_UREG_PC }, { "R_PSTATE", UDT_UREG_PSTATE },
	{ "R_FP", 29 },
#else
	{ "R_R15", UDT_UREG_R15 }, { "R_R14", UDT_UREG_R14 }, { "R_R13", UDT_UREG_R13 },
	{ "R_R12", UDT_UREG_R12 }, { "R_RBP", UDT_UREG_RBP }, { "R_RBX", UDT_UREG_RBX },
	{ "R_R11", UDT_UREG_R11 }, { "R_R10", UDT_UREG_R10 }, { "R_R9", UDT_UREG_R9 },
	{ "R_R8", UDT_UREG_R8 }, { "R_RAX", UDT_UREG_RAX }, { "R_RCX", UDT_UREG_RCX },
	{ "R_RDX", UDT_UREG_RDX }, { "R_RSI", UDT_UREG_RSI }, { "R_RDI", UDT_UREG_RDI },
	{ "R_ERR", UDT_UREG_ERR }, { "R_RIP", UDT_UREG_RIP }, { "R_CS", UDT_UREG_CS },
	{ "R_RFL", UDT_UREG_RFL }, { "R_RSP", UDT_UREG_RSP }, { "R_SS", UDT_UREG_SS },
	{ "R_DS", UDT_UREG_DS }, { "R_ES", UDT_UREG_ES }, { "R_FS", UDT_UREG_FS },
	{ "R_GS", UDT_UREG_GS }, { "R_TRAPNO", UDT_UREG_TRAPNO },
	{ "R_EBX", UDT_UREG_RBX }, { "R_ECX", UDT_UREG_RCX }, { "R_EDX", UDT_UREG_RDX },
	{ "R_ESI", UDT_UREG_RSI }, { "R_EDI", UDT_UREG_RDI }, { "R_EBP", UDT_UREG_RBP },
	{ "R_EAX", UDT_UREG_RAX }, { "R_EIP", UDT_UREG_RIP }, { "R_EFL", UDT_UREG_RFL },
	{ "R_ESP", UDT_UREG_RSP }, { "R_PC", UDT_UREG_RIP }, { "R_FP", UDT_UREG_RBP },
	{ "R_SP", UDT_UREG_RSP }, { "R_PS", UDT_UREG_RFL }, { "R_R0", UDT_UREG_RAX },
	{ "R_R1", UDT_UREG_RBX },
#endif
};

static int ureg_named(const char *id)
{
	for (size_t i = 0; i < UDT__ARRAY_SIZE(uregs); i++)
		if (!strcmp(id, uregs[i].name))
			return uregs[i].reg;
	return -1;
}

/* The names a script cannot use for a global variable of its own. */
bool is_reserved(struct cg *g, const char *id)
{
	static const char *const names[] = { "args", "self", "this", "probeprov", "probemod",
					     "probefunc", "probename", "execname", "id", "ipl",
					     "ucaller", "ustackdepth", "uregs", "curpsinfo",
					     "curlwpsinfo" };

	if (!strncmp(id, "arg", 3) && id[3] >= '0' && id[3] <= '9' && !id[4])
		return true;
	for (size_t i = 0; i < UDT__ARRAY_SIZE(builtins); i++)
		if (!strcmp(id, builtins[i].name))
			return true;
	for (size_t i = 0; i < UDT__ARRAY_SIZE(names); i++)
		if (!strcmp(id, names[i]))
			return true;
	if (ureg_named(id) >= 0)
		return true;
	for (int b = 0; b < g->nbinds; b++)
		if (!strcmp(id, g->binds[b].name))
			return true;
	return dl_sym_get(&g->p->enumconsts, id) != NULL;
}

static struct val gen_ident(struct cg *g, const struct dl_node *n, int r)
{
	const char *id = n->name;

	for (int b = g->nbinds - 1; b >= 0; b--) {
		if (strcmp(g->binds[b].name, id))
			continue;
		/* the input, compiled where the translation was asked for */
		int saved = g->nbinds;
		g->nbinds = b;
		struct val v = gen_xin(g, &g->binds[b].in, r, n);
		g->nbinds = saved;
		return v;
	}
	if (!strncmp(id, "arg", 3) && id[3] >= '0' && id[3] <= '9' && !id[4]) {
		if (r >= UDT_DIFO_REGS)
			cg_error(g, n, "expression is too deeply nested");
		emit(g, UDT_OP_LDARG, r, 0, 0, id[3] - '0');
		return (struct val){ .type = named(g, "int64_t"), .reg = r };
	}
	for (size_t i = 0; i < UDT__ARRAY_SIZE(builtins); i++) {
		if (strcmp(id, builtins[i].name))
			continue;
		if (r >= UDT_DIFO_REGS)
			cg_error(g, n, "expression is too deeply nested");
		emit(g, UDT_OP_LDVAR, r, 0, 0, builtins[i].var);
		struct val v = { .type = named(g, builtins[i].type), .reg = r };
		norm_reg(g, v.type, r);
		return v;
	}
	if (!strcmp(id, "probeprov"))
		return string_const(g, g->ctx->prov);
	if (!strcmp(id, "probemod"))
		return string_const(g, g->ctx->mod);
	if (!strcmp(id, "probefunc"))
		return string_const(g, g->ctx->func);
	if (!strcmp(id, "probename"))
		return string_const(g, g->ctx->name);
	if (!strcmp(id, "execname"))
		return string_const(g, g->ctx->execname);
	if (!strcmp(id, "id"))
		return constant(named(g, "uint_t"), g->ctx->id);
	if (!strcmp(id, "ipl"))
		return constant(named(g, "uint_t"), 0); /* (no interrupt priority in a process) */
	if (!strcmp(id, "ucaller") || !strcmp(id, "ustackdepth")) {
		bool caller = !strcmp(id, "ucaller");
		dl_cg_need_regs(g, n, r, 0);
		emit(g, UDT_OP_SUBR, r, r, r, caller ? UDT_SUBR_UCALLER : UDT_SUBR_USTACKDEPTH);
		return (struct val){ .type = named(g, caller ? "uint64_t" : "uint32_t"), .reg = r };
	}
	if (!strcmp(id, "curpsinfo") || !strcmp(id, "curlwpsinfo")) {
		/* the runtime's structures, in procfs.d's types (abi/psinfo.h; docs/proc.md) */
		bool lwp = id[3] == 'l';
		struct dl_qtype t;
		if (dl_parse_type_str(g->p, lwp ? "lwpsinfo_t *" : "psinfo_t *", &t))
			cg_error(g, n, "%s is a %s, which the D library procfs.d declares: it was not "
				 "loaded (-x nolibs, or -x libdir without it)", id,
				 lwp ? "lwpsinfo_t *" : "psinfo_t *");
		if (r >= UDT_DIFO_REGS)
			cg_error(g, n, "expression is too deeply nested");
		emit(g, UDT_OP_LDVAR, r, 0, 0, lwp ? UDT_VAR_CURLWPSINFO : UDT_VAR_CURPSINFO);
		return (struct val){ .type = t, .reg = r };
	}
	if (ureg_named(id) >= 0)
		return constant(named(g, "int"), ureg_named(id));
	struct dl_enumerator *e = dl_sym_get(&g->p->enumconsts, id);
	if (e)
		return constant(named(g, "int"), e->value);
	if (!strcmp(id, "args"))
		cg_error(g, n, "args[] must be indexed with a constant");
	if (!strcmp(id, "uregs"))
		cg_error(g, n, "uregs[] must be indexed");
	if (!strcmp(id, "NULL")) /* (D's NULL: a null pointer) */
		return constant((struct dl_qtype){ dl_type_ptr(g->p, named(g, "void")), 0 }, 0);
	struct val in;
	if (dl_cg_inline(g, n, r, &in))
		return in;
	if (dl_cg_is_global(g, id))
		return dl_cg_var_load(g, n, r);
	cg_error(g, n, "failed to resolve %s: Unknown variable name", id);
}

/* -- Objects in the traced process: members, elements, loads ----------------------------- */

static bool is_aggregate(struct dl_qtype t)
{
	enum dl_kind k = dl_type_resolve(t).t->kind;

	return k == DL_STRUCT || k == DL_UNION || k == DL_ARRAY;
}

/* The value of the object of type t at the address in r: loaded (fault-safe) if a scalar. */
static struct val load_at(struct cg *g, struct dl_qtype t, int r, int32_t off,
			  const struct dl_node *n)
{
	if (is_aggregate(t)) {
		if (off) {
			emit(g, UDT_OP_LDI, r + 1, 0, 0, off);
			emit(g, UDT_OP_ADD, r, r, r + 1, 0);
		}
		return (struct val){ .type = t, .reg = r, .is_addr = true };
	}
	/* a float or a double: its bits, for printf()'s %e %f %g (D does no arithmetic on them) */
	bool fp = dl_cg_is_float(t);
	if (!is_int(t) && !is_ptr(t) && !fp)
		cg_error(g, n, "loading a %s from the process is not supported",
			 dl_type_cdecl(g->p, t, NULL));
	unsigned w = is_ptr(t) ? 64 : width(t);
	bool sg = is_int(t) && is_signed(t);
	uint8_t op = w == 64 ? UDT_OP_LDX64 : w == 32 ? (sg ? UDT_OP_LDX32S : UDT_OP_LDX32)
		     : w == 16 ? (sg ? UDT_OP_LDX16S : UDT_OP_LDX16)
		     : (sg ? UDT_OP_LDX8S : UDT_OP_LDX8);
	emit(g, op, r, r, 0, off);
	return (struct val){ .type = t, .reg = r };
}

/* A member of a struct or union: where it is, its type, and its bits if a bit-field. */
struct member {
	uint64_t off;             /* bytes from the start (a bit-field's: its unit's) */
	struct dl_qtype type;
	uint8_t bit_off;          /* a bit-field: its first bit in the unit, and its bits */
	uint8_t bit_width;        /* 0: not a bit-field */
};

/* Member name of struct or union st, looked for in anonymous members too. */
static bool find_member(struct dl_qtype st, const char *name, struct member *ret)
{
	const struct dl_type *t = dl_type_resolve(st).t;

	for (size_t i = 0; i < t->member_cnt; i++) {
		const struct dl_member *m = &t->members[i];
		if (m->name && !strcmp(m->name, name)) {
			*ret = (struct member){ m->off, m->type, m->bit_off, m->bit_width };
			return true;
		}
		if (!m->name && find_member(m->type, name, ret)) {
			ret->off += m->off;
			return true;
		}
	}
	return false;
}

/* -- Translators --------------------------------------------------------------------- */

/* The type of expression x, compiled and thrown away. */
struct dl_qtype type_of(struct cg *g, const struct dl_node *x, int r)
{
	size_t n = g->n, nc = g->nc;
	struct val v = gen(g, x, r);

	g->n = n;
	g->nc = nc;
	return v.type;
}

/* Are a and b the same type, typedefs seen through? */
bool same_type(struct dl_qtype a, struct dl_qtype b)
{
	const struct dl_type *x = dl_type_resolve(a).t, *y = dl_type_resolve(b).t;

	if (x == y)
		return true;
	if (!x || !y || x->kind != y->kind)
		return false;
	if (x->kind == DL_PTR)
		return same_type(x->ref, y->ref);
	if (x->kind == DL_INT)
		return x->size == y->size && x->is_signed == y->is_signed;
	return false;
}

/*
 * The translator to out (a struct or union type) from an input of type in:
 * one whose input type is in, else (an integer or a void pointer given) the
 * only one to out.
 */
static const struct dl_translator *find_translator(struct cg *g, struct dl_qtype out,
						   struct dl_qtype in, const struct dl_node *n)
{
	size_t cnt, found = 0;
	struct dl_translator *const *xs = dl_program_translators(g->p, &cnt);
	const struct dl_translator *any = NULL;
	const struct dl_type *ri = dl_type_resolve(in).t;
	bool loose = is_int(in) || (ri->kind == DL_PTR && dl_type_resolve(ri->ref).t->kind == DL_VOID);

	for (size_t i = 0; i < cnt; i++) {
		if (!same_type(xs[i]->out, out) || (g->decl_limit && xs[i]->seq >= g->decl_limit))
			continue;
		if (same_type(xs[i]->in, in))
			return xs[i];
		any = xs[i];
		found++;
	}
	if (found == 1 && loose)
		return any;
	cg_error(g, n, "translator for %s from %s is not defined%s",
		 dl_type_cdecl(g->p, out, NULL), dl_type_cdecl(g->p, in, NULL),
		 found ? "" : ": load its provider's support file (-x libdir)");
}

/* xlate<T>(x) and xlate<T *>(x): a translation, whose members are compiled when named. */
static struct val gen_xlate(struct cg *g, const struct dl_node *n, int r)
{
	struct dl_qtype t = n->type, rt = dl_type_resolve(t), out = t;
	bool ptr = rt.t->kind == DL_PTR;

	if (ptr)
		out = rt.t->ref;
	enum dl_kind k = dl_type_resolve(out).t->kind;
	if (k != DL_STRUCT && k != DL_UNION)
		cg_error(g, n, "xlate<%s> needs a struct or union type (or a pointer to one)",
			 dl_type_cdecl(g->p, t, NULL));
	struct dl_qtype in = type_of(g, n->a, r);
	return (struct val){ .type = t, .xl = find_translator(g, out, in, n),
			     .xin = { .node = n->a }, .xl_ptr = ptr, .reg = r };
}

/* Member name of translation a (at n): its expression, compiled with the input bound. */
static struct val gen_xlate_member(struct cg *g, const struct dl_node *n, struct val a, int r)
{
	const struct dl_translator *x = a.xl;
	bool arrow = n->kind == DL_N_PTRMEMBER;

	if (arrow != a.xl_ptr)
		cg_error(g, n, "operator %s cannot be applied to %s", arrow ? "->" : ".",
			 dl_type_cdecl(g->p, a.type, NULL));
	const struct dl_xlator_member *m = NULL;
	for (size_t i = 0; i < x->member_cnt && !m; i++)
		if (!strcmp(x->members[i].name, n->name))
			m = &x->members[i];
	if (!m)
		cg_error(g, n, "%s is not a member of %s", n->name, dl_type_cdecl(g->p, x->out, NULL));
	if (g->nbinds >= (int)UDT__ARRAY_SIZE(g->binds))
		cg_error(g, n, "translators nest too deeply");
	g->binds[g->nbinds++] = (struct xbind){ x->in_name, a.xin };
	struct val v = gen(g, m->expr, r);
	g->nbinds--;
	/* the value has the type the output structure gives the member */
	struct member mb;
	if (find_member(x->out, n->name, &mb) && is_int(mb.type) && !v.strref && !v.cstr &&
	    !v.is_addr && !v.xl) {
		if (v.is_const)
			return constant(mb.type, v.cval);
		norm_reg(g, mb.type, v.reg);
		v.type = mb.type;
	}
	return v;
}

/*
 * The address of member n->name of a->name or a.name in r (and what the
 * member is, in *ret), or a translation's member's value (*ret's type NULL).
 * With fold, r is the address of the struct, and ret->off is left for the
 * load or the store to add (its immediate): no instructions for it.
 */
static struct val member_addr(struct cg *g, const struct dl_node *n, int r, struct member *ret,
			      bool fold)
{
	bool arrow = n->kind == DL_N_PTRMEMBER;
	struct val a = gen(g, n->a, r);
	struct dl_qtype st;

	if (a.xl) {
		ret->type.t = NULL;
		return gen_xlate_member(g, n, a, r);
	}
	if (arrow) {
		struct dl_qtype pt = dl_type_resolve(a.type);
		if (a.cstr || pt.t->kind != DL_PTR)
			cg_error(g, n, "operator -> must be applied to a pointer");
		st = pt.t->ref;
		materialize(g, &a, r, n);
	} else {
		if (!a.is_addr)
			cg_error(g, n, "operator . must be applied to a struct or union");
		st = a.type;
	}
	struct dl_qtype rs = dl_type_resolve(st);
	if (rs.t->kind != DL_STRUCT && rs.t->kind != DL_UNION)
		cg_error(g, n, "operator %s cannot be applied to %s", arrow ? "->" : ".",
			 dl_type_cdecl(g->p, st, NULL));
	if (!rs.t->complete)
		cg_error(g, n, "operator %s cannot be applied to a forward declaration: no %s "
			 "definition is available", arrow ? "->" : ".",
			 dl_type_cdecl(g->p, st, NULL));
	if (!find_member(st, n->name, ret))
		cg_error(g, n, "%s is not a member of %s", n->name, dl_type_cdecl(g->p, st, NULL));
	if (ret->off > INT32_MAX)
		cg_error(g, n, "member %s is too far into its structure", n->name);
	dl_cg_need_regs(g, n, r, 1);
	if (ret->off && !fold) {
		emit(g, UDT_OP_LDI, r + 1, 0, 0, (int32_t)ret->off);
		emit(g, UDT_OP_ADD, r, r, r + 1, 0);
	}
	return (struct val){ .type = ret->type, .reg = r, .is_addr = true };
}

/* The load of bit-field m from its unit at r + off: its value in r. */
static struct val load_bits(struct cg *g, const struct member *m, int r, int32_t off,
			    const struct dl_node *n)
{
	unsigned unit = (unsigned)dl_type_resolve(m->type).t->size * 8;
	struct val v = load_at(g, named(g, unit == 64 ? "uint64_t" : unit == 32 ? "uint32_t"
					   : unit == 16 ? "uint16_t" : "uint8_t"), r, off, n);

	dl_cg_need_regs(g, n, r, 1);
	if (m->bit_off) {
		emit(g, UDT_OP_LDI, r + 1, 0, 0, m->bit_off);
		emit(g, UDT_OP_SRL, r, r, r + 1, 0);
	}
	emit(g, is_signed(m->type) ? UDT_OP_SEXT : UDT_OP_ZEXT, r, r, 0, m->bit_width);
	v.type = m->type;
	return v;
}

/*
 * a->name and a.name: the member's address in r (want_addr), or its value
 * (loaded if a scalar, its address if a struct, union or array).
 */
static struct val gen_member(struct cg *g, const struct dl_node *n, int r, bool want_addr)
{
	struct member m;
	struct val a = member_addr(g, n, r, &m, !want_addr);

	if (!m.type.t) {
		if (want_addr)
			cg_error(g, n, "operator & cannot be applied to a translated member");
		return a;
	}
	if (m.bit_width && want_addr)
		cg_error(g, n, "cannot take address of bit-field");
	if (want_addr)
		return a;
	/* (the member's offset in the load: member_addr() left it) */
	if (m.bit_width)
		return load_bits(g, &m, r, (int32_t)m.off, n);
	return load_at(g, m.type, r, (int32_t)m.off, n);
}

/* s[i] of a D string: its character i (a constant's folded). */
static struct val gen_str_index(struct cg *g, const struct dl_node *n, struct val s, int r)
{
	struct val i = gen(g, n->args[0], r + 1);

	if (!is_int(i.type) || i.cstr)
		cg_error(g, n->args[0], "an index must be an integer");
	if (s.cstr && i.is_const && i.cval >= 0 && (uint64_t)i.cval <= strlen(s.cstr))
		return constant(named(g, "char"), s.cstr[i.cval]);
	dl_cg_need_regs(g, n, r, 1);
	dl_cg_dstr(g, &s, r, n->a);
	materialize(g, &i, r + 1, n);
	emit(g, UDT_OP_ADD, r, r, r + 1, 0);
	return load_at(g, named(g, "char"), r, 0, n);
}

/* a[i] of an array or a pointer: the element's address (want_addr) or its value. */
static struct val gen_element(struct cg *g, const struct dl_node *n, int r, bool want_addr)
{
	struct val a = gen(g, n->a, r);
	struct dl_qtype at = dl_type_resolve(a.type), et;
	bool array = at.t->kind == DL_ARRAY && a.is_addr;

	if (n->arg_cnt != 1)
		cg_error(g, n, "arrays of the process take one index");
	if (!want_addr && dl_cg_is_string(&a) && !array)
		return gen_str_index(g, n, a, r);
	if (array)
		et = at.t->ref;
	else if (at.t->kind == DL_PTR && !a.cstr)
		et = at.t->ref;
	else
		cg_error(g, n, "operator [ ] cannot be applied to %s",
			 a.cstr ? "a string" : dl_type_cdecl(g->p, a.type, NULL));
	uint64_t size = dl_type_resolve(et).t->size;
	if (!size)
		cg_error(g, n, "operator [ ] cannot be applied to a pointer to %s",
			 dl_type_cdecl(g->p, et, NULL));
	materialize(g, &a, r, n);
	struct val i = gen(g, n->args[0], r + 1);
	if (!is_int(i.type) || i.cstr)
		cg_error(g, n->args[0], "an index must be an integer");
	/* an array's size is known: a constant index past it is an error, as in DTrace */
	if (array && at.t->nelems && i.is_const && (uint64_t)i.cval >= at.t->nelems)
		cg_error(g, n, "index outside array bounds: %lld, max is %llu", (long long)i.cval,
			 (unsigned long long)at.t->nelems);
	dl_cg_need_regs(g, n, r, 2);
	if (i.is_const && (uint64_t)i.cval * size <= INT32_MAX && !want_addr)
		return load_at(g, et, r, (int32_t)((uint64_t)i.cval * size), n);
	materialize(g, &i, r + 1, n);
	if (size != 1) {
		struct val sz = constant(named(g, "uint64_t"), (int64_t)size);
		materialize(g, &sz, r + 2, n);
		emit(g, UDT_OP_MUL, r + 1, r + 1, r + 2, 0);
	}
	emit(g, UDT_OP_ADD, r, r, r + 1, 0);
	if (want_addr)
		return (struct val){ .type = et, .reg = r, .is_addr = true };
	return load_at(g, et, r, 0, n);
}

/* &x: the address of a member, an element, or what a pointer points to. */
static struct val gen_addrof(struct cg *g, const struct dl_node *n, int r)
{
	const struct dl_node *x = n->a;
	struct val v;

	if (dl_cg_is_var(g, x))
		cg_error(g, n, "cannot take address of dynamic variable");
	if (x->kind == DL_N_MEMBER || x->kind == DL_N_PTRMEMBER) {
		v = gen_member(g, x, r, true);
	} else if (x->kind == DL_N_INDEX && !(x->a->kind == DL_N_IDENT &&
						!strcmp(x->a->name, "args"))) {
		v = gen_element(g, x, r, true);
	} else if (x->kind == DL_N_UNARY && x->op == '*') {
		v = gen(g, x->a, r);
		if (!is_ptr(v.type) || v.cstr)
			cg_error(g, n, "operator * requires an operand of pointer type");
		return v;
	} else {
		cg_error(g, n, "operator & requires an object of the traced process (a member, an "
			 "element or *p)");
	}
	return (struct val){ .type = { dl_type_ptr(g->p, v.type), 0 }, .reg = v.reg };
}

/* -- Stores: members, elements and *p of D's own memory ------------------------------------- */

/* Is expression x a D string (compiled and thrown away)? A char array is not: it has bytes. */
static bool is_dstring_expr(struct cg *g, const struct dl_node *x, int r)
{
	size_t n = g->n, nc = g->nc;
	struct val v = gen(g, x, r);

	g->n = n;
	g->nc = nc;
	return v.cstr || v.strref || is_str(v.type);
}

/*
 * The object x names, its address in r: a member, an element, or what a
 * pointer points to (*m the member, its bits, when x is one).
 */
static struct val lvalue(struct cg *g, const struct dl_node *x, int r, struct member *m,
			 const struct dl_node *at, int32_t *fold)
{
	struct val v;

	*m = (struct member){ 0 };
	if (fold)
		*fold = 0;
	if (x->kind == DL_N_MEMBER || x->kind == DL_N_PTRMEMBER) {
		v = member_addr(g, x, r, m, fold != NULL);
		if (fold)
			*fold = (int32_t)m->off;
		if (!m->type.t)
			cg_error(g, at, "operator %s cannot be applied to a translated member",
				 dl_op_name(at->op));
		return v;
	}
	if (x->kind == DL_N_INDEX && !(x->a->kind == DL_N_IDENT &&
				       (!strcmp(x->a->name, "args") ||
					!strcmp(x->a->name, "uregs"))) && !is_dstring_expr(g, x->a, r))
		v = gen_element(g, x, r, true);
	else if (x->kind == DL_N_UNARY && x->op == '*')
		v = gen(g, x->a, r);
	else
		cg_error(g, x, "operator %s requires a modifiable lvalue as an operand",
			 dl_op_name(at->op));
	if (x->kind == DL_N_UNARY) {
		struct dl_qtype pt = dl_type_resolve(v.type);
		if (v.cstr || pt.t->kind != DL_PTR)
			cg_error(g, x, "operator * requires an operand of pointer type");
		materialize(g, &v, r, x);
		v = (struct val){ .type = pt.t->ref, .reg = r, .is_addr = true };
	}
	m->type = v.type;
	return v;
}

/*
 * Store v (in register rv) into the object at the address in ra plus off,
 * of member m's type (a bit-field into its bits); rt is free. The runtime
 * checks that the object is D's own memory (alloca()'s, a variable's).
 */
static void store_at(struct cg *g, const struct member *m, int ra, int32_t off, int rv, int rt,
		     const struct dl_node *n)
{
	struct dl_qtype t = m->type, rs = dl_type_resolve(t);
	uint64_t size = rs.t->size;

	if (dl_cg_is_ref_type(t)) {
		/* the bytes, as bcopy(src, dest, size) copies them */
		struct val sz = constant(named(g, "size_t"), (int64_t)size);
		dl_cg_need_regs(g, n, rv, 2);
		emit(g, UDT_OP_MOV, rv + 1, ra, 0, 0);
		if (off) {
			emit(g, UDT_OP_LDI, rv + 2, 0, 0, off);
			emit(g, UDT_OP_ADD, rv + 1, rv + 1, rv + 2, 0);
		}
		materialize(g, &sz, rv + 2, n);
		dl_cg_call(g, UDT_CALL_BCOPY, rv, 3);
		return;
	}
	if (!is_int(t) && !is_ptr(t) && !dl_cg_is_float(t))
		cg_error(g, n, "operator %s cannot store into a %s", dl_op_name(n->op),
			 dl_type_cdecl(g->p, t, NULL));
	uint8_t op = size == 8 || is_ptr(t) ? UDT_OP_STX64 : size == 4 ? UDT_OP_STX32
		     : size == 2 ? UDT_OP_STX16 : UDT_OP_STX8;
	if (!m->bit_width) {
		emit(g, op, 0, ra, rv, off);
		return;
	}
	/* a bit-field: its unit read, its bits replaced, written back */
	uint64_t mask = (m->bit_width >= 64 ? ~0ull : (1ull << m->bit_width) - 1) << m->bit_off;
	struct val k = constant(named(g, "uint64_t"), (int64_t)mask);
	dl_cg_need_regs(g, n, rt, 1);
	emit(g, size == 8 ? UDT_OP_LDX64 : size == 4 ? UDT_OP_LDX32 : size == 2 ? UDT_OP_LDX16
	     : UDT_OP_LDX8, rt, ra, 0, off);
	materialize(g, &k, rt + 1, n);
	emit(g, UDT_OP_NOT, rt + 1, rt + 1, 0, 0);
	emit(g, UDT_OP_AND, rt, rt, rt + 1, 0);           /* the unit without the field */
	emit(g, UDT_OP_LDI, rt + 1, 0, 0, m->bit_off);
	emit(g, UDT_OP_SLL, rv, rv, rt + 1, 0);
	k = constant(named(g, "uint64_t"), (int64_t)mask);
	materialize(g, &k, rt + 1, n);
	emit(g, UDT_OP_AND, rv, rv, rt + 1, 0);           /* the value in the field's bits */
	emit(g, UDT_OP_OR, rt, rt, rv, 0);
	emit(g, op, 0, ra, rt, off);
	emit(g, UDT_OP_LDI, rt + 1, 0, 0, m->bit_off);
	emit(g, UDT_OP_SRL, rv, rv, rt + 1, 0);          /* (the value stored, back) */
}

/* The value stored (v in r), as the object's type gives it back. */
static struct val stored(struct cg *g, const struct member *m, int r)
{
	if (m->bit_width) {
		emit(g, is_signed(m->type) ? UDT_OP_SEXT : UDT_OP_ZEXT, r, r, 0, m->bit_width);
		return (struct val){ .type = m->type, .reg = r };
	}
	norm_reg(g, m->type, r);
	return (struct val){ .type = m->type, .reg = r, .is_addr = dl_cg_is_ref_type(m->type) };
}

/*
 * Store the value in register rv into the object lhs names, for the
 * operator at n (the registers from rf up are free): *m the object's type.
 * An object inside an associative array's element of bytes (a[k].x = v) is
 * stored into a copy of the element (alloca()'s memory), which is then the
 * element anew: the space's elements are written only through STDV.
 */
static void put(struct cg *g, const struct dl_node *n, const struct dl_node *lhs, int rv, int rf,
		struct member *m)
{
	uint64_t size;
	const struct dl_node *elem = dl_cg_ref_elem(g, lhs, rf, &size);
	struct val lv;

	if (!elem) {
		int32_t off;
		lv = lvalue(g, lhs, rf, m, n, &off);
		materialize(g, &lv, rf, n);
		store_at(g, m, rf, off, rv, rf + 1, n);
		return;
	}
	struct val sz = constant(named(g, "size_t"), (int64_t)size);
	dl_cg_need_regs(g, n, rf, 4);
	materialize(g, &sz, rf, n);
	dl_cg_call(g, UDT_CALL_ALLOCA, rf, 1);            /* rf: the copy */
	(void)dl_cg_var_load(g, elem, rf + 1);           /* rf + 1: the element, or 0 */
	size_t skip = emit(g, UDT_OP_BZ, 0, rf + 1, 0, 0);
	emit(g, UDT_OP_MOV, rf + 2, rf + 1, 0, 0);
	emit(g, UDT_OP_MOV, rf + 3, rf, 0, 0);
	sz = constant(named(g, "size_t"), (int64_t)size);
	materialize(g, &sz, rf + 4, n);
	dl_cg_call(g, UDT_CALL_BCOPY, rf + 2, 3);
	patch_target(g, skip);
	/* the object's address in the element (from 0 when it is absent), in the copy */
	lv = lvalue(g, lhs, rf + 2, m, n, NULL);
	materialize(g, &lv, rf + 2, n);
	emit(g, UDT_OP_SUB, rf + 2, rf + 2, rf + 1, 0);
	emit(g, UDT_OP_ADD, rf + 2, rf + 2, rf, 0);
	store_at(g, m, rf + 2, 0, rv, rf + 3, n);
	dl_cg_ref_elem_put(g, elem, rf);
}

/* Check that v may go into an object of member m's type, for the operator at n. */
static void check_put(struct cg *g, const struct dl_node *n, const struct member *m,
		      const struct val *v)
{
	if (v->xl || !dl_cg_assignable(g, m->type, v) || dl_cg_is_string(v))
		cg_error(g, n, "operands have incompatible types: \"%s\" %s \"%s\"",
			 dl_type_cdecl(g->p, m->type, NULL), dl_op_name(n->op),
			 dl_cg_is_string(v) ? "string" : dl_type_cdecl(g->p, v->type, NULL));
}

struct dl_node dl_cg_compound_op(const struct dl_node *n)
{
	static const struct {
		int assign, op;
	} ops[] = {
		{ T_ADD_EQ, '+' }, { T_SUB_EQ, '-' }, { T_MUL_EQ, '*' }, { T_DIV_EQ, '/' },
		{ T_MOD_EQ, '%' }, { T_SHL_EQ, T_SHL }, { T_SHR_EQ, T_SHR }, { T_AND_EQ, '&' },
		{ T_XOR_EQ, '^' }, { T_OR_EQ, '|' },
	};
	struct dl_node b = *n;

	b.kind = DL_N_BINARY;
	for (size_t i = 0; i < UDT__ARRAY_SIZE(ops); i++)
		if (ops[i].assign == n->op)
			b.op = ops[i].op;
	return b;
}

struct val dl_cg_assign_lval(struct cg *g, const struct dl_node *n, int r)
{
	struct member m;
	struct val v;

	dl_cg_need_regs(g, n, r, 2);
	if (n->op == '=') {
		v = gen(g, n->b, r);
	} else {
		struct dl_node b = dl_cg_compound_op(n);
		v = gen_binary(g, &b, r);
	}
	/* the object's type, for the check (its code thrown away) */
	size_t at = g->n, nc = g->nc;
	(void)lvalue(g, n->a, r + 1, &m, n, NULL);
	g->n = at;
	g->nc = nc;
	check_put(g, n, &m, &v);
	materialize(g, &v, r, n);
	put(g, n, n->a, r, r + 1, &m);
	if (dl_cg_is_ref_type(m.type))
		return (struct val){ .type = m.type, .reg = r, .is_addr = true };
	return stored(g, &m, r);
}

struct val dl_cg_incdec_lval(struct cg *g, const struct dl_node *n, int r, bool post)
{
	struct member m;
	struct val old = gen(g, n->a, r);

	if (!is_int(old.type) || old.is_addr || old.cstr)
		cg_error(g, n, "operator %s requires an integer operand", dl_op_name(n->op));
	dl_cg_need_regs(g, n, r, 3);
	materialize(g, &old, r, n);
	emit(g, UDT_OP_LDI, r + 1, 0, 0, 1);
	emit(g, n->op == T_INC ? UDT_OP_ADD : UDT_OP_SUB, r + 1, r, r + 1, 0);
	put(g, n, n->a, r + 1, r + 2, &m);
	if (post)
		return (struct val){ .type = m.type, .reg = r };
	emit(g, UDT_OP_MOV, r, r + 1, 0, 0);
	return stored(g, &m, r);
}

/* $target, $pid and friends, $1 (an integer) and $$1 (a string): see macro.c. */
static struct val gen_macro(struct cg *g, const struct dl_node *n)
{
	bool numbered;
	const char *v;

	/* of the dtrace process, as in DTrace; $target is the traced one */
	if (!strcmp(n->name, "target"))
		return constant(named(g, "pid_t"), g->ctx->pid);
	if (!strcmp(n->name, "pid"))
		return constant(named(g, "pid_t"), (int64_t)getpid());
	if (!strcmp(n->name, "ppid"))
		return constant(named(g, "pid_t"), (int64_t)getppid());
	if (!strcmp(n->name, "pgid"))
		return constant(named(g, "pid_t"), (int64_t)getpgrp());
	if (!strcmp(n->name, "sid"))
		return constant(named(g, "pid_t"), (int64_t)getsid(0));
	if (!strcmp(n->name, "uid"))
		return constant(named(g, "uid_t"), (int64_t)getuid());
	if (!strcmp(n->name, "gid"))
		return constant(named(g, "gid_t"), (int64_t)getgid());
	v = dl_macro_arg(g->p, n->name, &numbered);
	if (!v)
		cg_error(g, n, "macro argument $%s%s is not defined", n->flag ? "$" : "", n->name);
	if (n->flag)
		return string_const(g, v);
	if (!*v)
		return constant(named(g, "int"), 0); /* defaultargs */
	char *end;
	errno = 0;
	long long x = strtoll(v, &end, 0);
	if (*end || errno)
		cg_error(g, n, "failed to resolve %s: Unknown variable name", v);
	bool small = x >= INT32_MIN && x <= INT32_MAX;
	return constant(named(g, small ? "int" : "long long"), x);
}

/* args[N]: the native argument N, normalized to its declared type. */
/* A probe table's type, parsed in the program (which holds the libdir's definitions). */
static struct dl_qtype table_type(struct cg *g, const struct dl_node *n, const char *ctype,
				  size_t i)
{
	struct dl_qtype t;

	if (!ctype || dl_parse_type_str(g->p, ctype, &t))
		cg_error(g, n, "args[%zu]: type %s is not defined: load its provider's support "
			 "file (-x libdir)", i, ctype ? ctype : "?");
	return t;
}

/*
 * args[i] of a probe with translated arguments: native argument mapping[i]
 * through the translator to its translated type (the native argument itself
 * when the types are the same).
 */
static struct val gen_translated_arg(struct cg *g, const struct dl_node *n,
				     const struct dl_probe *pr, size_t i, int r)
{
	unsigned m = pr->mapping[i];
	struct dl_qtype xt = table_type(g, n, pr->xargs[i].ctype, i);
	struct dl_qtype nt = m < pr->narg_cnt ? table_type(g, n, pr->nargs[m].ctype, i)
					      : (struct dl_qtype){ 0 };

	if (!nt.t)
		cg_error(g, n, "args[%zu] maps to no native argument", i);
	if (same_type(xt, nt)) {
		emit(g, UDT_OP_LDARG, r, 0, 0, (int32_t)m);
		norm_reg(g, nt, r);
		return (struct val){ .type = nt, .reg = r };
	}
	struct dl_qtype rt = dl_type_resolve(xt), out = xt;
	bool ptr = rt.t->kind == DL_PTR;
	if (ptr)
		out = rt.t->ref;
	return (struct val){ .type = xt, .xl = find_translator(g, out, nt, n),
			     .xin = { .arg = (int)m, .type = nt }, .xl_ptr = ptr, .reg = r };
}

/* uregs[i]: the user register i at the probe (runtime/ustack.c). */
static struct val gen_uregs(struct cg *g, const struct dl_node *n, int r)
{
	if (n->arg_cnt != 1)
		cg_error(g, n, "uregs[ ] prototype mismatch: %zu args passed, 1 expected", n->arg_cnt);
	struct val i = gen(g, n->args[0], r);
	if (i.cstr || i.strref || i.xl || i.is_addr || !is_int(i.type))
		cg_error(g, n->args[0], "uregs[ ] argument #1 is incompatible with prototype:\n"
			 "\tprototype: int\n\t argument: %s",
			 i.cstr || i.strref ? "string" : dl_type_cdecl(g->p, i.type, NULL));
	if (i.is_const && (i.cval < 0 || i.cval >= UDT_UREG_CNT))
		cg_error(g, n, "uregs[]: index out of bounds (%lld)", (long long)i.cval);
	materialize(g, &i, r, n);
	emit(g, UDT_OP_SUBR, r, r, r, UDT_SUBR_UREGS);
	return (struct val){ .type = named(g, "uint64_t"), .reg = r };
}

static struct val gen_args(struct cg *g, const struct dl_node *n, int r)
{
	const struct dl_probe *pr = g->ctx->probe;

	if (n->arg_cnt != 1)
		cg_error(g, n, "args[] takes one index");
	struct val idx = gen(g, n->args[0], r);
	if (!idx.is_const || idx.cstr)
		cg_error(g, n, "args[] must be indexed with an integer constant");
	if (!pr && g->decl_limit) {
		/* a declaration that uses args[] is checked where a clause uses it */
		g->deferred = true;
		longjmp(g->jb, 1);
	}
	if (!pr)
		cg_error(g, n, "args[] is not available in this clause");
	if (idx.cval < 0 || (uint64_t)idx.cval >= pr->xarg_cnt)
		cg_error(g, n, "index %lld is out of range for %s args[ ]",
			 (long long)idx.cval, g->ctx->name);
	if (r >= UDT_DIFO_REGS)
		cg_error(g, n, "expression is too deeply nested");
	if (pr->translated)
		return gen_translated_arg(g, n, pr, (size_t)idx.cval, r);
	struct val v = { .type = pr->nargs[idx.cval].type, .reg = r };
	/* a pointer to a structure: its type as the program declares it, for its members */
	struct dl_qtype ct;
	const char *cs = pr->nargs[idx.cval].ctype;
	if (is_ptr(v.type) && cs && !dl_parse_type_str(g->p, cs, &ct) && is_ptr(ct))
		v.type = ct;
	emit(g, UDT_OP_LDARG, r, 0, 0, (int32_t)idx.cval);
	norm_reg(g, v.type, r);
	/* a D string argument is the address of its characters in the process */
	v.strref = is_str(v.type);
	return v;
}

/* -- Operators ------------------------------------------------------------------------ */

static int64_t fold_binary(struct cg *g, const struct dl_node *n, int op, struct dl_qtype t,
			   int64_t a, int64_t b)
{
	bool s = is_signed(t);
	uint64_t ua = (uint64_t)a, ub = (uint64_t)b;

	switch (op) {
	case '+': return (int64_t)(ua + ub);
	case '-': return (int64_t)(ua - ub);
	case '*': return (int64_t)(ua * ub);
	case '/':
	case '%':
		if (!b)
			cg_error(g, n, "division by zero in a constant expression");
		if (s) {
			if (a == INT64_MIN && b == -1)
				return op == '/' ? a : 0;
			return op == '/' ? a / b : a % b;
		}
		return (int64_t)(op == '/' ? ua / ub : ua % ub);
	case '&': return a & b;
	case '|': return a | b;
	case '^': return a ^ b;
	case T_SHL: return (int64_t)(ua << (ub & 63));
	case T_SHR: return s ? a >> (ub & 63) : (int64_t)(ua >> (ub & 63));
	default: cg_error(g, n, "bad operator");
	}
}

static bool fold_compare(int op, bool s, int64_t a, int64_t b)
{
	uint64_t ua = (uint64_t)a, ub = (uint64_t)b;

	switch (op) {
	case T_EQ: return a == b;
	case T_NE: return a != b;
	case '<': return s ? a < b : ua < ub;
	case '>': return s ? a > b : ua > ub;
	case T_LE: return s ? a <= b : ua <= ub;
	default: return s ? a >= b : ua >= ub;
	}
}

/*
 * The address of string v in r: a string of the process (copyinstr(), a
 * char array, a char pointer), a D string, NULL, or a constant, which goes
 * into the DIFO's string table.
 */
static uint32_t str_addr(struct cg *g, struct val *v, int r, const struct dl_node *n)
{
	uint64_t max = 0;

	if (v->cstr) {
		emit(g, UDT_OP_LDS, r, 0, 0, dl_cg_strtab(g, v->cstr, n));
	} else if (v->strref || (v->is_addr && dl_type_resolve(v->type).t->kind == DL_ARRAY)) {
		if (v->reg != r)
			emit(g, UDT_OP_MOV, r, v->reg, 0, 0);
		max = v->strref ? v->str_max : dl_type_resolve(v->type).t->nelems;
	} else if (is_str(v->type) || (v->is_const && !v->cval) ||
		   (is_ptr(v->type) && !v->is_addr)) {
		/* a D string, NULL (compared as ""), or a char pointer into the process */
		materialize(g, v, r, n);
	} else {
		cg_error(g, n, "a string cannot be compared with type %s",
			 dl_type_cdecl(g->p, v->type, NULL));
	}
	v->reg = r;
	return max <= 0xffff ? (uint32_t)max : 0; /* (STRCMP's bound; a longer one is UDT_STRCMP_MAX) */
}

/* D does no arithmetic on floating point: a float or double is only printed (printf's %f...). */
static void no_float(struct cg *g, const struct dl_node *n, struct val v, const char *op)
{
	if (!v.cstr && !v.strref && dl_cg_is_float(v.type))
		cg_error(g, n, "%s cannot be applied to a floating-point value: D only prints them "
			 "(printf's %%e, %%f, %%g)", op);
}

static struct val gen_compare(struct cg *g, const struct dl_node *n, int r)
{
	struct val a = gen(g, n->a, r);
	struct val b = gen(g, n->b, r + 1);

	no_float(g, n, a, "a comparison");
	no_float(g, n, b, "a comparison");
	struct dl_qtype tint = named(g, "int");

	if (dl_cg_is_string(&a) || dl_cg_is_string(&b)) {
		if (a.cstr && b.cstr) {
			int c = strcmp(a.cstr, b.cstr);
			return constant(tint, fold_compare(n->op, true, c, 0));
		}
		/* strings of the process (or constants): compared at fire time, fault-safe */
		if (r + 1 >= UDT_DIFO_REGS)
			cg_error(g, n, "expression is too deeply nested");
		uint32_t mb = str_addr(g, &b, r + 1, n);
		uint32_t ma = str_addr(g, &a, r, n);
		emit(g, UDT_OP_STRCMP, r, r, r + 1, (int32_t)(ma | mb << 16));
		emit(g, UDT_OP_LDI, r + 1, 0, 0, 0);
		uint8_t sop;
		int ra = r, rb = r + 1;
		switch (n->op) {
		case T_EQ: sop = UDT_OP_SEQ; break;
		case T_NE: sop = UDT_OP_SNE; break;
		case '<': sop = UDT_OP_SLT; break;
		case T_LE: sop = UDT_OP_SLE; break;
		case '>': sop = UDT_OP_SLT; ra = r + 1; rb = r; break;
		default: sop = UDT_OP_SLE; ra = r + 1; rb = r; break;
		}
		emit(g, sop, r, ra, rb, 0);
		return (struct val){ .type = tint, .reg = r };
	}
	struct dl_qtype t = arith_type(g, a.type, b.type);
	bool s = is_signed(t) && !is_ptr(t);

	if (a.is_const && b.is_const) {
		convert_const(g, &a, t);
		convert_const(g, &b, t);
		return constant(tint, fold_compare(n->op, s, a.cval, b.cval));
	}
	operands(g, &a, &b, t, true, r, n);
	int ra = r, rb = r + 1;
	uint8_t op;
	switch (n->op) {
	case T_EQ: op = UDT_OP_SEQ; break;
	case T_NE: op = UDT_OP_SNE; break;
	case '<': op = s ? UDT_OP_SLT : UDT_OP_SLTU; break;
	case T_LE: op = s ? UDT_OP_SLE : UDT_OP_SLEU; break;
	case '>': op = s ? UDT_OP_SLT : UDT_OP_SLTU; ra = r + 1; rb = r; break;
	default: op = s ? UDT_OP_SLE : UDT_OP_SLEU; ra = r + 1; rb = r; break;
	}
	emit(g, op, r, ra, rb, 0);
	return (struct val){ .type = tint, .reg = r };
}

/* && || ^^: short-circuit, branching forward. */
static struct val gen_logical(struct cg *g, const struct dl_node *n, int r)
{
	struct dl_qtype tint = named(g, "int");
	struct val a = gen(g, n->a, r);

	no_float(g, n, a, "a logical operator");
	if (a.cstr)
		cg_error(g, n, "operands of %s must be scalars", dl_op_name(n->op));
	if (a.is_const && n->op != T_LXOR) {
		/* a decides, or b does */
		if ((n->op == T_LAND && !a.cval) || (n->op == T_LOR && a.cval))
			return constant(tint, n->op == T_LOR);
		struct val b = gen(g, n->b, r);
		if (b.cstr)
			cg_error(g, n, "operands of %s must be scalars", dl_op_name(n->op));
		if (b.is_const)
			return constant(tint, b.cval != 0);
		materialize(g, &b, r, n);
		if (r + 1 >= UDT_DIFO_REGS)
			cg_error(g, n, "expression is too deeply nested");
		emit(g, UDT_OP_LDI, r + 1, 0, 0, 0);
		emit(g, UDT_OP_SNE, r, r, r + 1, 0); /* r = b != 0 */
		return (struct val){ .type = tint, .reg = r };
	}
	materialize(g, &a, r, n);
	if (r + 1 >= UDT_DIFO_REGS)
		cg_error(g, n, "expression is too deeply nested");
	emit(g, UDT_OP_LDI, r + 1, 0, 0, 0);
	emit(g, UDT_OP_SNE, r, r, r + 1, 0); /* r = a != 0 */
	if (n->op == T_LXOR) {
		struct val b = gen(g, n->b, r + 1);
		materialize(g, &b, r + 1, n);
		if (r + 2 >= UDT_DIFO_REGS)
			cg_error(g, n, "expression is too deeply nested");
		emit(g, UDT_OP_LDI, r + 2, 0, 0, 0);
		emit(g, UDT_OP_SNE, r + 1, r + 1, r + 2, 0);
		emit(g, UDT_OP_XOR, r, r, r + 1, 0);
		return (struct val){ .type = tint, .reg = r };
	}
	size_t br = emit(g, n->op == T_LAND ? UDT_OP_BZ : UDT_OP_BNZ, 0, r, 0, 0);
	struct val b = gen(g, n->b, r + 1);
	materialize(g, &b, r + 1, n);
	if (r + 2 >= UDT_DIFO_REGS)
		cg_error(g, n, "expression is too deeply nested");
	emit(g, UDT_OP_LDI, r + 2, 0, 0, 0);
	emit(g, UDT_OP_SNE, r, r + 1, r + 2, 0);
	patch_target(g, br);
	return (struct val){ .type = tint, .reg = r };
}

/* The size of what pointer (or array) type t points to; void counts 1, as in GNU C. */
static uint64_t pointee_size(struct dl_qtype t)
{
	const struct dl_type *to = dl_type_resolve(dl_type_resolve(t).t->ref).t;

	return to && to->size ? to->size : 1;
}

/* May pointer (or array) type t take arithmetic: not a pointer to void or to a function? */
static bool arith_ptr(struct dl_qtype t)
{
	enum dl_kind k = dl_type_resolve(dl_type_resolve(t).t->ref).t->kind;

	return k != DL_VOID && k != DL_FUNC;
}

/* p + i, i + p, p - i (scaled by the pointee's size), and p - q (in elements, a long). */
static struct val gen_ptr_arith(struct cg *g, const struct dl_node *n, struct val a, struct val b,
				int r)
{
	bool pa = is_ptr(a.type), pb = is_ptr(b.type);

	/* as DTrace's: a void or function pointer takes no arithmetic, p - q needs alike types */
	if ((pa && !arith_ptr(a.type)) || (pb && !arith_ptr(b.type)) ||
	    (pa && pb && (n->op == '+' || !same_type(dl_type_resolve(a.type).t->ref,
						     dl_type_resolve(b.type).t->ref))) ||
	    (!pa && n->op == '-'))
		cg_error(g, n, "operands have incompatible types: \"%s\" %s \"%s\"",
			 dl_type_cdecl(g->p, a.type, NULL), dl_op_name(n->op),
			 dl_type_cdecl(g->p, b.type, NULL));
	struct dl_qtype pt = pa ? a.type : b.type;
	uint64_t size = pointee_size(pt);
	if (r + 2 >= UDT_DIFO_REGS)
		cg_error(g, n, "expression is too deeply nested");
	materialize(g, &a, r, n);
	materialize(g, &b, r + 1, n);
	struct val sz = constant(named(g, "uint64_t"), (int64_t)size);
	if (pa && pb) {
		emit(g, UDT_OP_SUB, r, r, r + 1, 0);
		if (size != 1) {
			materialize(g, &sz, r + 1, n);
			emit(g, UDT_OP_SDIV, r, r, r + 1, 0);
		}
		return (struct val){ .type = named(g, "long"), .reg = r };
	}
	int ri = pa ? r + 1 : r;
	if (size != 1) {
		materialize(g, &sz, r + 2, n);
		emit(g, UDT_OP_MUL, ri, ri, r + 2, 0);
	}
	emit(g, n->op == '+' ? UDT_OP_ADD : UDT_OP_SUB, r, r, r + 1, 0);
	struct dl_qtype rt = dl_type_resolve(pt);
	if (rt.t->kind == DL_ARRAY) /* an array decays to a pointer to its first element */
		pt = (struct dl_qtype){ dl_type_ptr(g->p, rt.t->ref), 0 };
	return (struct val){ .type = pt, .reg = r };
}

struct val gen_binary(struct cg *g, const struct dl_node *n, int r)
{
	static const struct {
		int tok;
		uint8_t op, sop;      /* unsigned and signed forms */
	} ops[] = {
		{ '+', UDT_OP_ADD, UDT_OP_ADD }, { '-', UDT_OP_SUB, UDT_OP_SUB },
		{ '*', UDT_OP_MUL, UDT_OP_MUL }, { '/', UDT_OP_UDIV, UDT_OP_SDIV },
		{ '%', UDT_OP_UREM, UDT_OP_SREM }, { '&', UDT_OP_AND, UDT_OP_AND },
		{ '|', UDT_OP_OR, UDT_OP_OR }, { '^', UDT_OP_XOR, UDT_OP_XOR },
		{ T_SHL, UDT_OP_SLL, UDT_OP_SLL }, { T_SHR, UDT_OP_SRL, UDT_OP_SRA },
	};

	if (dl_node_is_action(n->a) || dl_node_is_action(n->b)) {
		/* an action is void: DTrace names what the operator wants */
		const char *want = "arithmetic";
		switch (n->op) {
		case ',':
			cg_error(g, n, "operator , operands cannot be actions");
		case '&': case '|': case '^': case T_SHL: case T_SHR:
			want = "integral";
			break;
		case T_EQ: case T_NE: case '<': case '>': case T_LE: case T_GE:
		case T_LAND: case T_LOR: case T_LXOR:
			want = "scalar";
			break;
		default:
			break;
		}
		cg_error(g, n, "operator %s requires operands of %s type", dl_op_name(n->op), want);
	}
	switch (n->op) {
	case T_EQ: case T_NE: case '<': case '>': case T_LE: case T_GE:
		return gen_compare(g, n, r);
	case T_LAND: case T_LOR: case T_LXOR:
		return gen_logical(g, n, r);
	case ',':
		(void)gen(g, n->a, r);
		return gen(g, n->b, r);
	default:
		break;
	}
	size_t k;
	for (k = 0; k < UDT__ARRAY_SIZE(ops); k++)
		if (ops[k].tok == n->op)
			break;
	if (k == UDT__ARRAY_SIZE(ops))
		cg_error(g, n, "operator %s is not supported", dl_op_name(n->op));

	struct val a = gen(g, n->a, r);
	struct val b = gen(g, n->b, r + 1);
	if (a.cstr || b.cstr || is_str(a.type) || is_str(b.type))
		cg_error(g, n, "operator %s cannot be applied to a string", dl_op_name(n->op));
	if ((!is_int(a.type) && !is_ptr(a.type)) || (!is_int(b.type) && !is_ptr(b.type)))
		cg_error(g, n, "operator %s cannot be applied to a %s", dl_op_name(n->op),
			 dl_type_cdecl(g->p, is_int(a.type) || is_ptr(a.type) ? b.type : a.type,
				       NULL));
	if ((n->op == '+' || n->op == '-') && (is_ptr(a.type) || is_ptr(b.type)))
		return gen_ptr_arith(g, n, a, b, r);
	/* shifts take the type of the promoted left operand */
	struct dl_qtype t = (n->op == T_SHL || n->op == T_SHR) ? promote(g, a.type)
							      : arith_type(g, a.type, b.type);
	/* the operands converted to t (a shift's count needs no conversion); the result is
	   not narrowed: D computes in 64 bits */
	bool shift = n->op == T_SHL || n->op == T_SHR;
	if (a.is_const && b.is_const) {
		convert_const(g, &a, t);
		if (!shift)
			convert_const(g, &b, t);
		return wide_constant(t, fold_binary(g, n, n->op, t, a.cval, b.cval));
	}
	operands(g, &a, &b, t, !shift, r, n);
	emit(g, is_signed(t) ? ops[k].sop : ops[k].op, r, r, r + 1, 0);
	return (struct val){ .type = t, .reg = r };
}

static struct val gen_unary(struct cg *g, const struct dl_node *n, int r)
{
	if (n->op == '&')
		return gen_addrof(g, n, r);
	if (dl_node_is_action(n->a) && n->op != '*')
		cg_error(g, n, "operator %s requires an operand of %s type", dl_op_name(n->op),
			 n->op == '~' ? "integral" : n->op == '!' ? "scalar" : "arithmetic");
	struct val a = gen(g, n->a, r);

	if (n->op != '*')
		no_float(g, n, a, "a unary operator");
	if (a.cstr || is_str(a.type))
		cg_error(g, n, "operator %s cannot be applied to a string", dl_op_name(n->op));
	struct dl_qtype t = n->op == '!' ? named(g, "int") : n->op == '*' ? a.type
										 : promote(g, a.type);

	switch (n->op) {
	case '+':
		return a.is_const ? constant(t, a.cval) : (struct val){ .type = t, .reg = a.reg };
	case '-':
	case '~':
	case '!':
		if (a.is_const) {
			int64_t v = n->op == '-' ? (int64_t)(0 - (uint64_t)a.cval)
				    : n->op == '~' ? ~a.cval : !a.cval;
			return n->op == '!' ? constant(t, v) : wide_constant(t, v);
		}
		emit(g, n->op == '-' ? UDT_OP_NEG : n->op == '~' ? UDT_OP_NOT : UDT_OP_LNOT, r,
		     a.reg, 0, 0);
		return (struct val){ .type = t, .reg = r };
	case '*': {
		/* a load from application memory, fault-safe in the runtime */
		struct dl_qtype r0 = dl_type_resolve(a.type);
		if (r0.t->kind != DL_PTR)
			cg_error(g, n, "operator * requires an operand of pointer type");
		struct dl_qtype to = r0.t->ref;
		if (!is_int(to) && !is_ptr(to) && !is_aggregate(to) && !dl_cg_is_float(to))
			cg_error(g, n, "dereferencing %s is not supported",
				 dl_type_cdecl(g->p, a.type, NULL));
		materialize(g, &a, r, n);
		return load_at(g, to, r, 0, n);
	}
	default:
		cg_error(g, n, "operator %s is not supported", dl_op_name(n->op));
	}
}

static struct val gen_cast(struct cg *g, const struct dl_node *n, int r)
{
	struct val a = gen(g, n->a, r);
	struct dl_qtype to = n->type;

	no_float(g, n, a, "a cast");
	if (!is_int(to) && !is_ptr(to))
		cg_error(g, n, "cannot cast to %s", dl_type_cdecl(g->p, to, NULL));
	if (a.cstr)
		cg_error(g, n, "cannot cast a string to %s", dl_type_cdecl(g->p, to, NULL));
	if (a.is_const)
		return constant(to, a.cval);
	/* (a value of an int type may hold more than an int, until it is cast or stored) */
	norm_reg(g, to, a.reg);
	return (struct val){ .type = to, .reg = a.reg };
}

static struct val gen_ternary(struct cg *g, const struct dl_node *n, int r)
{
	/* (DTrace checks the actions' arguments first) */
	for (int i = 0; i < 2; i++) {
		const struct dl_node *x = i ? n->c : n->b;
		if (dl_node_is_action(x) && (!strcmp(x->a->name, "trace") ||
					     !strcmp(x->a->name, "exit")) && x->arg_cnt != 1)
			cg_error(g, x, "%s( ) prototype mismatch: %zu args passed, 1 expected",
				 x->a->name, x->arg_cnt);
	}
	if (dl_node_is_action(n->b) || dl_node_is_action(n->c))
		cg_error(g, n, "action cannot be used in a conditional context");
	struct val c = gen(g, n->a, r);

	if (c.cstr)
		cg_error(g, n, "the condition of ?: must be a scalar");
	if (c.is_const)
		return gen(g, c.cval ? n->b : n->c, r);
	/* strings on either side make a D string (NULL the other side, if 0) */
	bool strs = dl_cg_is_string_expr(g, n->b, r) || dl_cg_is_string_expr(g, n->c, r);
	size_t to_else = emit(g, UDT_OP_BZ, 0, c.reg, 0, 0);
	struct val a = gen(g, n->b, r);
	if (strs)
		dl_cg_dstr(g, &a, r, n->b);
	materialize(g, &a, r, n);
	size_t to_end = emit(g, UDT_OP_BA, 0, 0, 0, 0);
	patch_target(g, to_else);
	struct val b = gen(g, n->c, r);
	if (strs)
		dl_cg_dstr(g, &b, r, n->c);
	materialize(g, &b, r, n);
	patch_target(g, to_end);
	if (strs)
		return (struct val){ .type = named(g, "string"), .reg = r };
	return (struct val){ .type = arith_type(g, a.type, b.type), .reg = r };
}

struct val gen(struct cg *g, const struct dl_node *n, int r)
{
	switch (n->kind) {
	case DL_N_INT: {
		/* C's rules for the type of an integer constant */
		int sfx = n->op;
		bool u = sfx & 1;
		int longs = sfx >> 1;
		const char *ty = "int";

		if (n->flag)
			ty = "char";
		else if (longs == 0 && !u && n->ival <= INT_MAX)
			ty = "int";
		else if (longs == 0 && n->ival <= UINT_MAX)
			ty = u ? "unsigned int" : n->ival <= INT_MAX ? "int" : "unsigned int";
		else if (!u && n->ival <= INT64_MAX)
			ty = longs == 2 ? "long long" : "long";
		else
			ty = longs == 2 ? "unsigned long long" : "unsigned long";
		return constant(named(g, ty), (int64_t)n->ival);
	}
	case DL_N_STRING:
		return string_const(g, n->sval);
	case DL_N_IDENT:
		return gen_ident(g, n, r);
	case DL_N_INDEX:
		if (n->a->kind == DL_N_IDENT && !strcmp(n->a->name, "args"))
			return gen_args(g, n, r);
		if (n->a->kind == DL_N_IDENT && !strcmp(n->a->name, "uregs"))
			return gen_uregs(g, n, r);
		if (dl_cg_is_var(g, n))
			return dl_cg_var_load(g, n, r);
		return gen_element(g, n, r, false);
	case DL_N_BINARY:
		if (n->op == '=' || (n->op >= T_MUL_EQ && n->op <= T_OR_EQ))
			return dl_cg_assign(g, n, r);
		return gen_binary(g, n, r);
	case DL_N_UNARY:
		if (n->op == T_INC || n->op == T_DEC)
			return dl_cg_incdec(g, n, r, false);
		return gen_unary(g, n, r);
	case DL_N_POSTFIX:
		return dl_cg_incdec(g, n, r, true);
	case DL_N_PTRMEMBER:
		if (dl_cg_is_var(g, n))
			return dl_cg_var_load(g, n, r);
		return gen_member(g, n, r, false);
	case DL_N_MEMBER:
		return gen_member(g, n, r, false);
	case DL_N_CAST:
		return gen_cast(g, n, r);
	case DL_N_TERNARY:
		return gen_ternary(g, n, r);
	case DL_N_SIZEOF: {
		struct dl_qtype t = n->a ? gen(g, n->a, r).type : n->type;
		struct dl_qtype rt = dl_type_resolve(t);
		return constant(named(g, "size_t"), (int64_t)rt.t->size);
	}
	case DL_N_OFFSETOF: {
		struct member mb;
		enum dl_kind k = dl_type_resolve(n->type).t->kind;
		if (k != DL_STRUCT && k != DL_UNION)
			cg_error(g, n, "offsetof( ) operand must be a struct or union type");
		if (!find_member(n->type, n->name, &mb))
			cg_error(g, n, "%s is not a member of %s", n->name,
				 dl_type_cdecl(g->p, n->type, NULL));
		if (mb.bit_width)
			cg_error(g, n, "offsetof( ) cannot be applied to a bit-field");
		return constant(named(g, "size_t"), (int64_t)mb.off);
	}
	case DL_N_MACRO:
		return gen_macro(g, n);
	case DL_N_XLATE:
		return gen_xlate(g, n, r);
	case DL_N_CALL:
		if (dl_cg_is_subr(n))
			return dl_cg_subr(g, n, r);
		struct val sv;
		if (n->a->kind == DL_N_IDENT && dl_cg_rt_subr(g, n, r, &sv))
			return sv;
		cg_error(g, n, "%s() is not supported in an expression",
			 n->a->kind == DL_N_IDENT ? n->a->name : "this function");
	case DL_N_STRINGOF:
		return dl_cg_stringof(g, n, r);
	default:
		cg_error(g, n, "this expression is not supported");
	}
}

void dl_difo_free(struct dl_difo *d)
{
	if (!d)
		return;
	free(d->bytes);
	d->bytes = NULL;
}

static void cg_free(struct cg *g)
{
	free(g->insns);
	free(g->consts);
	udt__sb_reset(&g->str);
}

/* The DIFO of what g generated, returning register reg; g's buffers are freed. */
static void finish_difo(struct cg *g, struct dl_difo *d, int reg)
{
	emit(g, UDT_OP_RET, 0, reg, 0, 0);
	/* the body: instructions, constants, the string table; 8-aligned as a whole */
	size_t body = g->n * sizeof(struct udt_insn) + g->nc * 8;
	size_t str_sz = (g->str.len + 7) & ~(size_t)7;
	struct udt_difo h = {
		.size = sizeof(h),
		.insn_cnt = (uint32_t)g->n,
		.const_cnt = (uint32_t)g->nc,
		.str_sz = (uint32_t)str_sz,
		.nregs = (uint32_t)g->max_reg + 1,
	};
	d->sz = sizeof(h) + body + str_sz;
	d->bytes = udt__xcalloc(1, d->sz);
	memcpy(d->bytes, &h, sizeof(h));
	memcpy(d->bytes + sizeof(h), g->insns, g->n * sizeof(struct udt_insn));
	if (g->nc)
		memcpy(d->bytes + sizeof(h) + g->n * sizeof(struct udt_insn), g->consts, g->nc * 8);
	if (g->str.len)
		memcpy(d->bytes + sizeof(h) + body, g->str.buf, g->str.len);
	cg_free(g);
}

/* How compile() gives the value: as it is, narrowed to its type, or an object's address. */
enum how { AS_VALUE, NARROW, OBJECT };

static int compile(struct dl_program *p, const struct dl_node *expr, const struct dl_probe_ctx *ctx,
		   enum how how, struct dl_difo *ret, char **ret_err)
{
	bool narrow = how == NARROW;
	struct cg g = { .p = p, .ctx = ctx };
	struct dl_difo d = { .direct_arg = -1, .direct_var = -1 };

	if (setjmp(g.jb)) {
		cg_free(&g);
		*ret_err = g.err;
		return -1;
	}
	struct val v = gen(&g, expr, 0);

	d.writes = g.writes;
	if (v.xl)
		cg_error(&g, expr, "a translated %s must be used through its members",
			 dl_type_cdecl(p, v.type, NULL));
	if (v.is_addr && dl_node_is_effect(expr)) {
		/* a struct assigned: a statement, whose value nothing records */
		v = (struct val){ .type = named(&g, "uintptr_t"), .reg = v.reg };
	} else if (v.is_addr && how == OBJECT) {
		/* print(): the object's bytes, at the address the DIFO gives */
		finish_difo(&g, &d, v.reg);
		d.is_object = true;
		d.type = v.type;
		*ret = d;
		return 0;
	} else if (v.is_addr) {
		struct dl_qtype rt = dl_type_resolve(v.type);
		const struct dl_type *el = rt.t->kind == DL_ARRAY ? dl_type_resolve(rt.t->ref).t : NULL;
		if (!el || el->kind != DL_INT || el->size != 1)
			cg_error(&g, expr, "a %s cannot be traced: name one of its members", dl_type_cdecl(p, v.type, NULL));
		/* a char array of the process is a string, as long as the array at most */
		v.strref = true;
		v.str_max = rt.t->nelems;
	}
	if (v.strref || (is_str(v.type) && !v.cstr)) {
		/* the DIFO gives the address; the action copies the string (fault-safe);
		   copyinstr(argN): the runtime copies from the argument, with no code to run */
		if (g.n == 1 && g.insns[0].op == UDT_OP_LDARG && g.insns[0].rd == v.reg && v.reg == 0)
			d.direct_arg = g.insns[0].imm;
		finish_difo(&g, &d, v.reg);
		d.copyinstr = d.is_string = true;
		d.str_max = v.str_max;
		d.type = named(&g, "string");
		*ret = d;
		return 0;
	}
	d.type = v.type;
	if (narrow && v.is_const)
		v.cval = norm_const(v.type, v.cval);
	else if (narrow && !v.cstr && (!g.n || (g.insns[g.n - 1].op != UDT_OP_SEXT &&
						g.insns[g.n - 1].op != UDT_OP_ZEXT)))
		norm_reg(&g, v.type, v.reg);
	if (v.cstr) {
		d.is_const = d.is_string = true;
		d.const_str = v.cstr;
		/* a string is at most strsize - 1 bytes, a constant too (as DTrace records it) */
		if (ctx->strsize && strlen(v.cstr) >= ctx->strsize)
			d.const_str = dl_strndup(p, v.cstr, ctx->strsize - 1);
	} else if (v.is_const) {
		d.is_const = true;
		d.const_val = v.cval;
	}
	/*
	 * A bare argument or builtin needs no code at fire time: the runtime
	 * records it directly. (Narrower types are normalized when printed.)
	 */
	if (!d.is_const && g.n >= 1 && g.n <= 2 && v.reg == 0 &&
	    (g.insns[0].op == UDT_OP_LDARG || g.insns[0].op == UDT_OP_LDVAR) &&
	    (g.n == 1 || g.insns[1].op == UDT_OP_SEXT || g.insns[1].op == UDT_OP_ZEXT)) {
		if (g.insns[0].op == UDT_OP_LDARG)
			d.direct_arg = g.insns[0].imm;
		else
			d.direct_var = g.insns[0].imm;
	}
	if (!d.is_const)
		finish_difo(&g, &d, v.reg);
	else
		cg_free(&g);
	*ret = d;
	return 0;
}

int dl_compile(struct dl_program *p, const struct dl_node *expr, const struct dl_probe_ctx *ctx,
	       struct dl_difo *ret, char **ret_err)
{
	return compile(p, expr, ctx, AS_VALUE, ret, ret_err);
}

int dl_compile_narrow(struct dl_program *p, const struct dl_node *expr,
		      const struct dl_probe_ctx *ctx, struct dl_difo *ret, char **ret_err)
{
	return compile(p, expr, ctx, NARROW, ret, ret_err);
}

int dl_compile_object(struct dl_program *p, const struct dl_node *expr,
		      const struct dl_probe_ctx *ctx, struct dl_difo *ret, char **ret_err)
{
	return compile(p, expr, ctx, OBJECT, ret, ret_err);
}

/* -- Declarations ------------------------------------------------------------------------ */

/*
 * Translator x, as DTrace checks it where it is declared: an output struct or
 * union that is complete, not declared already from the same input, members
 * of the output, each expression compiled with the input bound and
 * assignable to its member.
 */
static void check_translator(struct cg *g, struct dl_translator *x)
{
	size_t cnt;
	struct dl_translator *const *xs = dl_program_translators(g->p, &cnt);
	struct dl_node at = { .kind = DL_N_IDENT, .loc = x->loc };
	const struct dl_type *out = dl_type_resolve(x->out).t;

	if (out->kind != DL_STRUCT && out->kind != DL_UNION)
		cg_error(g, &at, "translator output type must be a struct or union");
	if (!out->complete)
		cg_error(g, &at, "incomplete struct/union/enum %s", dl_type_cdecl(g->p, x->out, NULL));
	for (size_t i = 0; i < cnt && xs[i] != x; i++)
		if (same_type(xs[i]->out, x->out) && same_type(xs[i]->in, x->in))
			cg_error(g, &at, "translator from %s to %s has already been declared",
				 dl_type_cdecl(g->p, x->in, NULL), dl_type_cdecl(g->p, x->out, NULL));
	g->decl_limit = x->seq;
	for (size_t i = 0; i < x->member_cnt; i++) {
		const struct dl_xlator_member *m = &x->members[i];
		struct dl_node mat = { .kind = DL_N_IDENT, .name = m->name, .loc = m->loc };
		struct member mb;

		if (!find_member(x->out, m->name, &mb))
			cg_error(g, &mat, "translator member %s is not a member of %s", m->name,
				 dl_type_cdecl(g->p, x->out, NULL));
		g->binds[0] = (struct xbind){ x->in_name, { .arg = 0, .type = x->in } };
		g->nbinds = 1;
		g->n = g->nc = 0;
		struct val v = gen(g, m->expr, 0);
		g->nbinds = 0;
		if (!dl_cg_assignable(g, mb.type, &v))
			cg_error(g, &mat, "translator member %s definition uses incompatible types: "
				 "\"%s\" = \"%s\"", m->name, dl_type_cdecl(g->p, mb.type, NULL),
				 dl_cg_is_string(&v) ? "string" : dl_type_cdecl(g->p, v.type, NULL));
	}
}

/* Check translator x, or inline in: 0, or -1 with the message in *ret_err. */
static int check_decl(struct dl_program *p, const struct dl_probe_ctx *ctx,
		      struct dl_translator *x, struct dl_inline *in, char **ret_err)
{
	struct cg g = { .p = p, .ctx = ctx };

	if (setjmp(g.jb)) {
		cg_free(&g);
		if (g.deferred)
			return 0;
		*ret_err = g.err;
		return -1;
	}
	if (x)
		check_translator(&g, x);
	else
		dl_cg_check_inline(&g, in);
	cg_free(&g);
	return 0;
}

int dl_check_decls(struct dl_program *p, const struct dl_probe_ctx *ctx, char **ret_err)
{
	size_t nx;
	struct dl_translator *const *xs = dl_program_translators(p, &nx);

	/* in the order they were declared, each seeing those before it */
	for (uint32_t seq = 1; seq <= p->decl_seq; seq++) {
		struct dl_inline *in = NULL;
		struct dl_translator *x = NULL;
		for (size_t i = 0; i < nx && !x; i++)
			x = xs[i]->seq == seq && !xs[i]->checked ? xs[i] : NULL;
		for (size_t i = 0; i < p->inlines.cap && !x && !in; i++) {
			struct dl_inline *c = p->inlines.vals[i];
			in = c && c->seq == seq && !c->checked ? c : NULL;
		}
		if (!x && !in)
			continue;
		if (check_decl(p, ctx, x, in, ret_err))
			return -1;
		if (x)
			x->checked = true;
		else
			in->checked = true;
	}
	return 0;
}
