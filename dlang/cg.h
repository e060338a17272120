/* SPDX-License-Identifier: MIT */
/*
 * The bytecode compiler's private interface, shared by its files:
 * compile.c (expressions), compile_var.c (variables: scalars, strings,
 * associative arrays, declarations) and compile_str.c (D strings and the
 * subroutines). Nothing outside dlang/ includes it.
 *
 * The helpers keep the short names the code generator has always used;
 * they are function-like macros for dl_cg_-prefixed functions, so that the
 * library exports no unprefixed symbol (and a field of the same name, as
 * dl_type's is_signed, is left alone).
 */
#ifndef UDT_DLANG_CG_H
#define UDT_DLANG_CG_H

#include <setjmp.h>

#include "dlang/internal.h"
#include "abi/abi.h"
#include "abi/bytecode.h"
#include "util/util.h"

/*
 * A value descriptor: a compile-time constant (nothing emitted), or a
 * register. A D string in a register (type string, neither cstr nor strref)
 * is the address of its bytes, 0 for NULL.
 */
struct val {
	struct dl_qtype type;
	bool is_const;
	int64_t cval;
	const char *cstr;         /* a constant string */
	int reg;                  /* register with the value, when not constant */
	bool is_addr;             /* reg holds the address of the object (a struct, union or
				     array in the traced process, or a D variable's), not its value */
	bool strref;              /* reg holds the address of a string in the process, for the
				     action to copy (copyinstr), at most str_max bytes (0: strsize) */
	uint64_t str_max;
	const struct dl_translator *xl; /* a translation (xlate<T>(in), or a translated args[]),
					   not evaluated: its members are, through xl */
	struct xin {
		const struct dl_node *node; /* the input expression, or */
		int arg;                    /* native argument arg (node NULL) */
		struct dl_qtype type;       /* of this type */
	} xin;
	bool xl_ptr;              /* xlate<T *>: members with ->, else with . */
};

struct cg {
	struct dl_program *p;
	const struct dl_probe_ctx *ctx;
	struct udt_insn *insns;
	size_t n, cap;
	int max_reg;
	uint64_t *consts;
	size_t nc, capc;
	struct udt_strbuf str;
	char *err;
	jmp_buf jb;
	/* while a translator member compiles, its input's name stands for the input */
	struct xbind {
		const char *name;
		struct xin in;
	} binds[8];
	int nbinds;
	int inline_depth;         /* inlines being expanded (compile_var.c), */
	const struct dl_inline *inline_stack[DL_MAX_NESTING]; /* which, outermost first */
	uint32_t inline_uses;     /* and how many were in all (a budget: they may double) */
	/* dl_check_decls(): the declaration being checked sees those before it only (seq
	   below decl_limit), and one that needs a probe's context is checked where used */
	uint32_t decl_limit;
	bool deferred;
	bool writes;              /* it calls copyout() or copyoutstr() (compile_str.c) */
};

#define cg_error(...) dl_cg_error(__VA_ARGS__)
#define emit(...) dl_cg_emit(__VA_ARGS__)
#define patch_target(...) dl_cg_patch_target(__VA_ARGS__)
#define named(...) dl_cg_named(__VA_ARGS__)
#define is_int(...) dl_cg_is_int(__VA_ARGS__)
#define is_ptr(...) dl_cg_is_ptr(__VA_ARGS__)
#define is_str(...) dl_cg_is_str(__VA_ARGS__)
#define width(...) dl_cg_width(__VA_ARGS__)
#define is_signed(...) dl_cg_is_signed(__VA_ARGS__)
#define promote(...) dl_cg_promote(__VA_ARGS__)
#define norm_const(...) dl_cg_norm_const(__VA_ARGS__)
#define norm_reg(...) dl_cg_norm_reg(__VA_ARGS__)
#define materialize(...) dl_cg_materialize(__VA_ARGS__)
#define constant(...) dl_cg_constant(__VA_ARGS__)
#define gen(...) dl_cg_gen(__VA_ARGS__)
#define string_const(...) dl_cg_string_const(__VA_ARGS__)
#define type_of(...) dl_cg_type_of(__VA_ARGS__)
#define same_type(...) dl_cg_same_type(__VA_ARGS__)
#define is_reserved(...) dl_cg_is_reserved(__VA_ARGS__)
#define gen_binary(...) dl_cg_gen_binary(__VA_ARGS__)

/* compile.c */
_Noreturn void cg_error(struct cg *g, const struct dl_node *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
size_t emit(struct cg *g, uint8_t op, int rd, int rs1, int rs2, int32_t imm);
/* Make the branch at `at` go to the next instruction emitted. */
void patch_target(struct cg *g, size_t at);
struct dl_qtype named(struct cg *g, const char *name);
bool is_int(struct dl_qtype t);
bool is_ptr(struct dl_qtype t);
bool is_str(struct dl_qtype t);
unsigned width(struct dl_qtype t);
bool is_signed(struct dl_qtype t);
struct dl_qtype promote(struct cg *g, struct dl_qtype t);
int64_t norm_const(struct dl_qtype t, int64_t v);
void norm_reg(struct cg *g, struct dl_qtype t, int r);
/* Put v into register r (constants are loaded; a constant string is its table address). */
void materialize(struct cg *g, struct val *v, int r, const struct dl_node *n);
struct val constant(struct dl_qtype t, int64_t v);
/* Compile n, its value in register r (or a constant), using the registers above r. */
struct val gen(struct cg *g, const struct dl_node *n, int r);
struct val string_const(struct cg *g, const char *s);
/* The type of expression x, compiled and thrown away. */
struct dl_qtype type_of(struct cg *g, const struct dl_node *x, int r);
bool same_type(struct dl_qtype a, struct dl_qtype b);
/* Is id a name the script cannot give a variable (a builtin, an enumerator...)? */
bool is_reserved(struct cg *g, const char *id);
struct val gen_binary(struct cg *g, const struct dl_node *n, int r);

/* A float or a double (a long double is not loaded: no register holds it)? */
bool dl_cg_is_float(struct dl_qtype t);
/* x op e of compound assignment n (x op= e), a binary node. */
struct dl_node dl_cg_compound_op(const struct dl_node *n);
/* lhs op= rhs, and lhs++ (post) or ++lhs, of a member, an element or *p: the value, in r. */
struct val dl_cg_assign_lval(struct cg *g, const struct dl_node *n, int r);
struct val dl_cg_incdec_lval(struct cg *g, const struct dl_node *n, int r, bool post);

/* compile_str.c */
/* The subroutine's call (enum udt_call), its arguments in r..r+argc-1: the result in r. */
void dl_cg_call(struct cg *g, uint32_t subr, int r, int argc);
/* Fail unless register r + k is one the DIFO may use. */
void dl_cg_need_regs(struct cg *g, const struct dl_node *n, int r, int k);
/* Is v a string (a constant, a string or char array of the process, a D string)? */
bool dl_cg_is_string(const struct val *v);
/* Is expression x a string (compiled and thrown away)? */
bool dl_cg_is_string_expr(struct cg *g, const struct dl_node *x, int r);
/* The offset of constant s in the DIFO's string table (added once). */
int32_t dl_cg_strtab(struct cg *g, const char *s, const struct dl_node *n);
/* v as a D string in register r: a constant's table address, a process string copied. */
void dl_cg_dstr(struct cg *g, struct val *v, int r, const struct dl_node *n);
/* Is n a call of a subroutine compile_str.c knows; then compile it. */
bool dl_cg_is_subr(const struct dl_node *n);
struct val dl_cg_subr(struct cg *g, const struct dl_node *n, int r);
struct val dl_cg_stringof(struct cg *g, const struct dl_node *n, int r);
/* Is n a call of speculation(), rand() or progenyof(); then compile it into *ret. */
bool dl_cg_rt_subr(struct cg *g, const struct dl_node *n, int r, struct val *ret);
/* Is name a subroutine's? */
bool dl_cg_is_subr_name(const char *name);
/* D's prototype check message for an argument: "f( ) argument #1 is incompatible ...". */
_Noreturn void dl_cg_bad_arg(struct cg *g, const struct dl_node *at, const char *what,
			     const char *kind, size_t i, const char *proto, const struct val *v);

/* compile_var.c */
struct val dl_cg_var_load(struct cg *g, const struct dl_node *n, int r);
struct val dl_cg_assign(struct cg *g, const struct dl_node *n, int r);
struct val dl_cg_incdec(struct cg *g, const struct dl_node *n, int r, bool post);
/* Is n a variable (self->x, this->x, x, a[k], self->a[k])? */
bool dl_cg_is_var(struct cg *g, const struct dl_node *n);
/*
 * If lhs is an object inside an associative array's element of bytes
 * (a[k].x, a[k].s.arr[2]), the element's node (and its bytes, *ret_size);
 * else NULL. r: the registers it may use to find out.
 */
const struct dl_node *dl_cg_ref_elem(struct cg *g, const struct dl_node *lhs, int r,
				     uint64_t *ret_size);
/* That element = the bytes at the address in register rbuf (the registers above it free). */
void dl_cg_ref_elem_put(struct cg *g, const struct dl_node *elem, int rbuf);
/* Is t a struct, union or array: a variable of it is bytes (is_ref)? */
bool dl_cg_is_ref_type(struct dl_qtype t);
/* Is id a global variable, an array or an inline the program has (or declares)? */
bool dl_cg_is_global(struct cg *g, const char *id);
/* The value of inline id, or false. */
bool dl_cg_inline(struct cg *g, const struct dl_node *n, int r, struct val *ret);
/* Check inline in's definition (dl_check_decls()). */
void dl_cg_check_inline(struct cg *g, struct dl_inline *in);
/* Is v of a type that may be assigned to an object of type want (C's rules, D's strings)? */
bool dl_cg_assignable(struct cg *g, struct dl_qtype want, const struct val *v);

#endif /* UDT_DLANG_CG_H */
