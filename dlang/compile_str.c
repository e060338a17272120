/* SPDX-License-Identifier: MIT */
/*
 * D strings in the compiler, and the subroutines: their prototypes (as
 * DTrace's dt_open.c declares them), the checks of their arguments with
 * DTrace's messages, and their calls (the runtime's UDT_OP_CALL, run in the
 * traced process at fire time: vm/vm_str.c).
 *
 * A string value is one of:
 *  - a constant (struct val's cstr): folded where it can be, else the
 *    address of its copy in the DIFO's string table (LDS);
 *  - a string of the process not yet copied (strref: copyinstr(), a char
 *    array member, stringof of a pointer), which an action copies straight
 *    into its record; a char array is cut at its size;
 *  - a D string: a register holding an address (of a variable's slot, of
 *    the scratch space where subroutines put their results, of the string
 *    table, or of the process's memory, which the runtime reads
 *    fault-safe), or 0 for NULL.
 * dl_cg_dstr() makes any of them a D string, copying what must be bounded.
 */
#include "dlang/cg.h"

#include <string.h>

void dl_cg_need_regs(struct cg *g, const struct dl_node *n, int r, int k)
{
	if (r + k >= UDT_DIFO_REGS)
		cg_error(g, n, "expression is too deeply nested");
}

/* Is v a char array of the process (a string cut at its size)? */
static bool is_char_array(const struct val *v)
{
	struct dl_qtype rt = dl_type_resolve(v->type);
	const struct dl_type *el;

	if (!v->is_addr || rt.t->kind != DL_ARRAY)
		return false;
	el = dl_type_resolve(rt.t->ref).t;
	return el->kind == DL_INT && el->size == 1;
}

bool dl_cg_is_string(const struct val *v)
{
	return v->cstr || v->strref || is_str(v->type) || is_char_array(v);
}

bool dl_cg_is_string_expr(struct cg *g, const struct dl_node *x, int r)
{
	size_t n = g->n, nc = g->nc;
	struct val v = gen(g, x, r);

	g->n = n;
	g->nc = nc;
	return dl_cg_is_string(&v);
}

int32_t dl_cg_strtab(struct cg *g, const char *s, const struct dl_node *n)
{
	size_t len = strlen(s) + 1, off = 0;

	/* the table holds each constant once */
	while (off < g->str.len && strcmp(g->str.buf + off, s))
		off += strlen(g->str.buf + off) + 1;
	if (off >= g->str.len) {
		off = g->str.len;
		udt__sb_putn(&g->str, s, len);
	}
	if (off > INT32_MAX)
		cg_error(g, n, "too many string constants");
	return (int32_t)off;
}

void dl_cg_call(struct cg *g, uint32_t subr, int r, int argc)
{
	g->p->uses_mem = true;
	g->writes |= subr == UDT_CALL_COPYOUT || subr == UDT_CALL_COPYOUTSTR;
	emit(g, UDT_OP_CALL, r, r, argc, (int32_t)subr);
}

void dl_cg_dstr(struct cg *g, struct val *v, int r, const struct dl_node *n)
{
	uint64_t max = v->strref ? v->str_max : is_char_array(v)
			       ? dl_type_resolve(v->type).t->nelems : 0;

	if (v->cstr) {
		emit(g, UDT_OP_LDS, r, 0, 0, dl_cg_strtab(g, v->cstr, n));
	} else if ((v->strref || is_char_array(v)) && max) {
		/* bounded: a copy, cut at the array's size */
		dl_cg_need_regs(g, n, r, 1);
		if (v->reg != r)
			emit(g, UDT_OP_MOV, r, v->reg, 0, 0);
		struct val m = constant(named(g, "size_t"), (int64_t)max);
		materialize(g, &m, r + 1, n);
		dl_cg_call(g, UDT_CALL_COPYINSTR, r, 2);
	} else if (v->strref) {
		/* an address the runtime reads where it is (the process's: fault-safe) */
		if (v->reg != r)
			emit(g, UDT_OP_MOV, r, v->reg, 0, 0);
	} else if (is_str(v->type) || (v->is_const && !v->cval)) {
		materialize(g, v, r, n); /* a D string already, or NULL */
	} else {
		cg_error(g, n, "a %s is not a string", dl_type_cdecl(g->p, v->type, NULL));
	}
	*v = (struct val){ .type = named(g, "string"), .reg = r };
}

static const char *val_type(struct cg *g, const struct val *v)
{
	return dl_cg_is_string(v) ? "string" : dl_type_cdecl(g->p, v->type, NULL);
}

_Noreturn void dl_cg_bad_arg(struct cg *g, const struct dl_node *at, const char *what,
			     const char *kind, size_t i, const char *proto, const struct val *v)
{
	bool key = !strcmp(kind, "key");

	cg_error(g, at, "%s%s %s #%zu is incompatible with prototype:\n\tprototype: %s\n\t%9s: %s",
		 what, key ? "[ ]" : "( )", kind, i + 1, proto, kind, val_type(g, v));
}

/* -- Subroutines ------------------------------------------------------------------------- */

/* What an argument must be. */
enum arg {
	A_STR,    /* a string: "const char *" */
	A_INT,    /* an integer */
	A_ADDR,   /* an integer or a pointer: an address, a size */
	A_PTR,    /* a pointer to the prototype's type (or void), an array, 0 */
	A_ICONST, /* an integer constant */
};

static const struct subr {
	const char *name;
	uint32_t id;
	const char *ret;          /* its type: "string", "void", or a type name */
	uint8_t min, max;         /* arguments */
	struct {
		enum arg kind;
		const char *proto;
	} args[3];
} subrs[] = {
	{ "strlen", UDT_CALL_STRLEN, "size_t", 1, 1, { { A_STR, "const char *" } } },
	{ "strjoin", UDT_CALL_STRJOIN, "string", 2, 2,
	  { { A_STR, "const char *" }, { A_STR, "const char *" } } },
	{ "substr", UDT_CALL_SUBSTR, "string", 2, 3,
	  { { A_STR, "const char *" }, { A_INT, "int" }, { A_INT, "int" } } },
	{ "index", UDT_CALL_INDEX, "int", 2, 3,
	  { { A_STR, "const char *" }, { A_STR, "const char *" }, { A_INT, "int" } } },
	{ "rindex", UDT_CALL_RINDEX, "int", 2, 3,
	  { { A_STR, "const char *" }, { A_STR, "const char *" }, { A_INT, "int" } } },
	{ "strchr", UDT_CALL_STRCHR, "string", 2, 2,
	  { { A_STR, "const char *" }, { A_INT, "char" } } },
	{ "strrchr", UDT_CALL_STRRCHR, "string", 2, 2,
	  { { A_STR, "const char *" }, { A_INT, "char" } } },
	{ "strstr", UDT_CALL_STRSTR, "string", 2, 2,
	  { { A_STR, "const char *" }, { A_STR, "const char *" } } },
	{ "strtok", UDT_CALL_STRTOK, "string", 2, 2,
	  { { A_STR, "const char *" }, { A_STR, "const char *" } } },
	{ "basename", UDT_CALL_BASENAME, "string", 1, 1, { { A_STR, "const char *" } } },
	{ "dirname", UDT_CALL_DIRNAME, "string", 1, 1, { { A_STR, "const char *" } } },
	{ "lltostr", UDT_CALL_LLTOSTR, "string", 1, 2, { { A_INT, "int64_t" }, { A_INT, "int" } } },
	{ "toupper", UDT_CALL_TOUPPER, "string", 1, 1, { { A_STR, "const char *" } } },
	{ "tolower", UDT_CALL_TOLOWER, "string", 1, 1, { { A_STR, "const char *" } } },
	{ "strtoll", UDT_CALL_STRTOLL, "int64_t", 1, 2,
	  { { A_STR, "const char *" }, { A_INT, "int" } } },
	{ "copyin", UDT_CALL_COPYIN, "void *", 2, 2, { { A_ADDR, "uintptr_t" }, { A_ADDR, "size_t" } } },
	{ "copyinto", UDT_CALL_COPYINTO, "void", 3, 3,
	  { { A_ADDR, "uintptr_t" }, { A_ADDR, "size_t" }, { A_ADDR, "void *" } } },
	{ "copyinstr", UDT_CALL_COPYINSTR, "string", 1, 2,
	  { { A_ADDR, "uintptr_t" }, { A_ADDR, "size_t" } } },
	{ "alloca", UDT_CALL_ALLOCA, "void *", 1, 1, { { A_ADDR, "size_t" } } },
	{ "bcopy", UDT_CALL_BCOPY, "void", 3, 3,
	  { { A_ADDR, "void *" }, { A_ADDR, "void *" }, { A_ADDR, "size_t" } } },
	{ "cleanpath", UDT_CALL_CLEANPATH, "string", 1, 1, { { A_STR, "const char *" } } },
	/* destructive: they write the process's memory (the consumer wants -w) */
	/* the network's, of the address at a pointer (Oracle's inet_ntoa6() has the second argument) */
	{ "inet_ntoa", UDT_CALL_INET_NTOA, "string", 1, 1, { { A_PTR, "ipaddr_t *" } } },
	{ "inet_ntoa6", UDT_CALL_INET_NTOA6, "string", 1, 2,
	  { { A_PTR, "struct in6_addr *" }, { A_ICONST, "int" } } },
	{ "inet_ntop", UDT_CALL_INET_NTOP, "string", 2, 2, { { A_INT, "int" }, { A_PTR, "void *" } } },
	{ "link_ntop", UDT_CALL_LINK_NTOP, "string", 2, 2, { { A_INT, "int" }, { A_PTR, "void *" } } },
	{ "copyout", UDT_CALL_COPYOUT, "void", 3, 3,
	  { { A_ADDR, "void *" }, { A_ADDR, "uintptr_t" }, { A_ADDR, "size_t" } } },
	{ "copyoutstr", UDT_CALL_COPYOUTSTR, "void", 3, 3,
	  { { A_STR, "string" }, { A_ADDR, "uintptr_t" }, { A_ADDR, "size_t" } } },
};

static const struct subr *subr_of(const struct dl_node *n)
{
	if (n->kind != DL_N_CALL || n->a->kind != DL_N_IDENT)
		return NULL;
	for (size_t i = 0; i < UDT__ARRAY_SIZE(subrs); i++)
		if (!strcmp(subrs[i].name, n->a->name))
			return &subrs[i];
	return NULL;
}

bool dl_cg_is_subr(const struct dl_node *n)
{
	return subr_of(n) != NULL;
}

bool dl_node_is_subr(const struct dl_node *x)
{
	return subr_of(x) != NULL;
}

bool dl_node_is_action(const struct dl_node *x)
{
	static const char *const actions[] = {
		"trace", "printf", "printa", "print", "tracemem", "exit", "stop", "raise", "chill",
		"system", "speculate", "commit", "discard", "clear", "trunc", "normalize",
		"denormalize", "setopt", "freopen", "ftruncate", "breakpoint", "panic",
	};

	if (x->kind != DL_N_CALL || x->a->kind != DL_N_IDENT)
		return false;
	for (size_t i = 0; i < UDT__ARRAY_SIZE(actions); i++)
		if (!strcmp(actions[i], x->a->name))
			return true;
	return false;
}

bool dl_node_is_void_subr(const struct dl_node *x)
{
	const struct subr *s = subr_of(x);

	return s && !strcmp(s->ret, "void");
}

/* Does v pass for a string argument: a string, a char or void pointer, NULL? */
static bool string_arg(const struct val *v)
{
	if (v->xl)
		return false;
	if (dl_cg_is_string(v) || (v->is_const && !v->cval))
		return true;
	if (!is_ptr(v->type) || v->is_addr)
		return false;
	const struct dl_type *to = dl_type_resolve(dl_type_resolve(v->type).t->ref).t;
	return to->kind == DL_VOID || (to->kind == DL_INT && to->size == 1);
}

/*
 * Does v pass for a pointer argument of prototype proto ("T *"): a pointer to
 * T (typedefs seen through) or to void, an array of T (its address), a void
 * pointer, or the constant 0? Without a type T (a library not read), a
 * pointer to void or 0 only.
 */
static bool pointer_arg(struct cg *g, const struct val *v, const char *proto)
{
	if (v->cstr || v->strref || v->xl || is_str(v->type))
		return false;
	if (v->is_const && is_int(v->type))
		return !v->cval;
	if (!is_ptr(v->type))
		return false;
	struct dl_qtype to = dl_type_resolve(v->type).t->ref;
	if (dl_type_resolve(to).t->kind == DL_VOID)
		return true;
	size_t len = strlen(proto) - 2; /* (" *") */
	char name[64];
	if (len >= sizeof(name))
		return false;
	memcpy(name, proto, len);
	name[len] = '\0';
	struct dl_type *want = !strncmp(name, "struct ", 7) ? dl_lookup_tag(g->p, DL_STRUCT, name + 7)
							   : dl_lookup_typedef(g->p, name);
	if (!want)
		return false;
	return want->kind == DL_VOID || same_type(to, (struct dl_qtype){ want, 0 });
}

/* copyinstr(addr[, max]) with a constant max (or none): copied by the action that uses it. */
static struct val copyinstr(struct cg *g, const struct dl_node *n, int r, const struct subr *s)
{
	struct val a = gen(g, n->args[0], r);
	uint64_t max = 0;

	if (dl_cg_is_string(&a) || a.is_addr || a.xl || (!is_int(a.type) && !is_ptr(a.type)))
		dl_cg_bad_arg(g, n->args[0], s->name, "argument", 0, s->args[0].proto, &a);
	materialize(g, &a, r, n);
	if (n->arg_cnt == 2) {
		struct val m = gen(g, n->args[1], r + 1);
		if (dl_cg_is_string(&m) || m.xl || (!is_int(m.type) && !is_ptr(m.type)))
			dl_cg_bad_arg(g, n->args[1], s->name, "argument", 1, s->args[1].proto, &m);
		if (!m.is_const) {
			/* a bound known at fire time: the copy is made there, in the scratch space */
			materialize(g, &m, r + 1, n);
			dl_cg_call(g, UDT_CALL_COPYINSTR, r, 2);
			return (struct val){ .type = named(g, "string"), .reg = r };
		}
		if (m.cval <= 0)
			cg_error(g, n->args[1], "copyinstr( ) argument #2 must be a positive size");
		max = (uint64_t)m.cval;
	}
	return (struct val){ .type = named(g, "string"), .reg = r, .strref = true, .str_max = max };
}

struct val dl_cg_subr(struct cg *g, const struct dl_node *n, int r)
{
	const struct subr *s = subr_of(n);
	size_t argc = n->arg_cnt;

	if (argc < s->min || argc > s->max)
		cg_error(g, n, "%s( ) prototype mismatch: %zu arg%s passed, %s%u expected", s->name,
			 argc, argc == 1 ? "" : "s", s->min != s->max ? "at least " : "",
			 (unsigned)s->min);
	dl_cg_need_regs(g, n, r, (int)argc);
	if (s->id == UDT_CALL_COPYINSTR)
		return copyinstr(g, n, r, s);
	for (size_t i = 0; i < argc; i++) {
		int ri = r + (int)i;
		struct val v = gen(g, n->args[i], ri);
		enum arg kind = s->args[i].kind;
		bool ok = kind == A_STR ? string_arg(&v)
			  : kind == A_PTR ? pointer_arg(g, &v, s->args[i].proto)
			  : !dl_cg_is_string(&v) && !v.xl && !v.is_addr &&
			    (is_int(v.type) || (kind == A_ADDR && is_ptr(v.type)));
		if (!ok)
			dl_cg_bad_arg(g, n->args[i], s->name, "argument", i, s->args[i].proto, &v);
		if (kind == A_ICONST && !v.is_const)
			cg_error(g, n->args[i], "%s( ) argument #%zu must be an integer constant",
				 s->name, i + 1);
		if (s->args[i].kind == A_STR && dl_cg_is_string(&v))
			dl_cg_dstr(g, &v, ri, n->args[i]);
		materialize(g, &v, ri, n->args[i]);
	}
	dl_cg_call(g, s->id, r, (int)argc);
	if (!strcmp(s->ret, "string"))
		return (struct val){ .type = named(g, "string"), .reg = r };
	if (!strcmp(s->ret, "void *"))
		return (struct val){ .type = { dl_type_ptr(g->p, named(g, "void")), 0 }, .reg = r };
	struct val v = { .type = named(g, s->ret), .reg = r };
	if (is_int(v.type))
		norm_reg(g, v.type, r);
	return v;
}

/* stringof(x): a string as it is; a pointer or an integer as the address of the process's. */
struct val dl_cg_stringof(struct cg *g, const struct dl_node *n, int r)
{
	if (dl_node_is_action(n->a))
		cg_error(g, n, "cannot apply stringof to a value of type void");
	struct val v = gen(g, n->a, r);

	if (dl_cg_is_string(&v))
		return v;
	if (v.xl || v.is_addr || (!is_int(v.type) && !is_ptr(v.type)))
		cg_error(g, n, "cannot apply stringof to a value of type %s",
			 dl_type_cdecl(g->p, v.type, NULL));
	materialize(g, &v, r, n);
	return (struct val){ .type = named(g, "string"), .reg = r, .strref = true };
}

/* The subroutines the runtime computes without memory (UDT_OP_SUBR). */
static const struct {
	const char *name;
	int subr;
	size_t nargs;
	const char *ret;          /* its type */
	const char *proto;        /* its argument's */
} rt_subrs[] = {
	{ "speculation", UDT_SUBR_SPECULATION, 0, "int", NULL },
	{ "rand", UDT_SUBR_RAND, 0, "int", NULL },
	{ "progenyof", UDT_SUBR_PROGENYOF, 1, "int", "pid_t" },
	{ "htons", UDT_SUBR_HTONS, 1, "uint16_t", "uint16_t" },
	{ "ntohs", UDT_SUBR_HTONS, 1, "uint16_t", "uint16_t" },
	{ "htonl", UDT_SUBR_HTONL, 1, "uint32_t", "uint32_t" },
	{ "ntohl", UDT_SUBR_HTONL, 1, "uint32_t", "uint32_t" },
	{ "htonll", UDT_SUBR_HTONLL, 1, "uint64_t", "uint64_t" },
	{ "ntohll", UDT_SUBR_HTONLL, 1, "uint64_t", "uint64_t" },
};

/* A byte order subroutine of constant v, folded: the host's order to the network's. */
static int64_t fold_bswap(int subr, int64_t v)
{
	uint64_t u = (uint64_t)v, r = 0;
	unsigned bytes = subr == UDT_SUBR_HTONS ? 2 : subr == UDT_SUBR_HTONL ? 4 : 8;

	if (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)
		return bytes == 8 ? v : (int64_t)(u & ((1ull << (bytes * 8)) - 1));
	for (unsigned i = 0; i < bytes; i++)
		r = r << 8 | ((u >> (8 * i)) & 0xff);
	return (int64_t)r;
}

/* speculation(), rand(), progenyof(pid), htons() and the others: UDT_OP_SUBR. */
bool dl_cg_rt_subr(struct cg *g, const struct dl_node *n, int r, struct val *ret)
{
	size_t k = 0;

	while (k < UDT__ARRAY_SIZE(rt_subrs) && strcmp(n->a->name, rt_subrs[k].name))
		k++;
	if (k == UDT__ARRAY_SIZE(rt_subrs))
		return false;
	if (n->arg_cnt != rt_subrs[k].nargs)
		cg_error(g, n, "%s( ) prototype mismatch: %zu arg%s passed, %zu expected",
			 rt_subrs[k].name, n->arg_cnt, n->arg_cnt == 1 ? "" : "s", rt_subrs[k].nargs);
	dl_cg_need_regs(g, n, r, 0);
	struct dl_qtype rt = named(g, rt_subrs[k].ret);
	if (rt_subrs[k].nargs) {
		struct val a = gen(g, n->args[0], r);
		if (a.cstr || a.strref || a.xl || a.is_addr || !is_int(a.type))
			cg_error(g, n->args[0], "%s( ) argument #1 is incompatible with prototype:\n"
				 "\tprototype: %s\n\t argument: %s", rt_subrs[k].name,
				 rt_subrs[k].proto,
				 a.cstr || a.strref ? "string" : dl_type_cdecl(g->p, a.type, NULL));
		if (a.is_const && rt_subrs[k].subr != UDT_SUBR_PROGENYOF) {
			*ret = constant(rt, fold_bswap(rt_subrs[k].subr, a.cval));
			return true;
		}
		materialize(g, &a, r, n);
	}
	emit(g, UDT_OP_SUBR, r, r, r, rt_subrs[k].subr);
	*ret = (struct val){ .type = rt, .reg = r };
	norm_reg(g, ret->type, r);
	return true;
}

bool dl_cg_is_subr_name(const char *name)
{
	for (size_t i = 0; i < UDT__ARRAY_SIZE(subrs); i++)
		if (!strcmp(subrs[i].name, name))
			return true;
	for (size_t i = 0; i < UDT__ARRAY_SIZE(rt_subrs); i++)
		if (!strcmp(rt_subrs[i].name, name))
			return true;
	return false;
}
