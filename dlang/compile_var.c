/* SPDX-License-Identifier: MIT */
/*
 * D variables in the compiler: global (x), thread-local (self->x) and
 * clause-local (this->x) scalars and strings, associative arrays (a[k...]
 * and self->a[k...]), their declarations, and inlines.
 *
 * A variable is declared by a declaration ("string s;", "self int x;",
 * "int a[int, string];") or by its first assignment in the script's order,
 * which gives its type, its kind and, for an array, its keys' types. Each
 * kind has its own storage in the runtime (docs/runtime.md, "Variables"),
 * and so its own numbering:
 *
 *   integers and pointers   8-byte slots per scope: LDTV/STTV, LDLV/STLV, LDGV/STGV
 *   strings                 strsize slots per scope: LDTS/STTS, LDLS/STLS, LDGS/STGS
 *   associative arrays      the dynamic variable space: LDDV/STDV, the keys in
 *                           consecutive registers, numbered across scopes
 *
 * As in DTrace, an unset integer reads 0 and an unset string NULL, which
 * compares equal to ""; storing 0 (NULL) into an array element deletes it.
 * Strings are copied when assigned.
 */
#include "dlang/cg.h"

#include <string.h>

/* How a variable of each scope is written: "self->" x, "this->" x, x. */
static const char *const scope_prefix[] = { "self->", "this->", "" };

/* -- The program's variables ------------------------------------------------------- */

enum vkind { VK_SCALAR, VK_STRING, VK_ARRAY };

static enum vkind kind_of(const struct dl_var *v)
{
	return v->is_array ? VK_ARRAY : v->is_str || v->is_ref ? VK_STRING : VK_SCALAR;
}

/* The string slots (of strsize bytes) variable v takes: one, or as many as its bytes need. */
static uint64_t slots_of(const struct dl_var *v, uint64_t strsize)
{
	uint64_t slot = udt_str_slot(strsize);

	/* (the bytes start after the first slot's set word, and run over the next slots) */
	return v->is_ref ? (dl_type_resolve(v->type).t->size + 8 + slot - 1) / slot : 1;
}

/* The first string slot of variable v (of VK_STRING) in its scope's. */
static uint64_t slot_index(const struct dl_program *p, const struct dl_var *v, uint64_t strsize)
{
	uint64_t n = 0;

	for (size_t i = 0; i < p->var_cnt && &p->vars[i] != v; i++)
		if (kind_of(&p->vars[i]) == VK_STRING && p->vars[i].scope == v->scope)
			n += slots_of(&p->vars[i], strsize);
	return n;
}

static size_t count(const struct dl_program *p, enum dl_var_scope scope, enum vkind k)
{
	size_t n = 0;

	for (size_t i = 0; i < p->var_cnt; i++)
		n += kind_of(&p->vars[i]) == k && (k == VK_ARRAY || p->vars[i].scope == scope);
	return n;
}

size_t dl_program_var_count(const struct dl_program *p, enum dl_var_scope scope)
{
	return count(p, scope, VK_SCALAR);
}

size_t dl_program_strvar_count(const struct dl_program *p, enum dl_var_scope scope,
			       uint64_t strsize)
{
	size_t n = 0;

	for (size_t i = 0; i < p->var_cnt; i++)
		if (kind_of(&p->vars[i]) == VK_STRING && p->vars[i].scope == scope)
			n += slots_of(&p->vars[i], strsize);
	return n;
}

/*
 * The registers key type t takes: a string or an integer one, a struct or
 * union one per 8 of its bytes (its words are the key: its bytes compared).
 */
static size_t key_regs(struct dl_qtype t)
{
	return dl_cg_is_ref_type(t) ? (dl_type_resolve(t).t->size + 7) / 8 : 1;
}

uint64_t dl_program_dyn_chunk(const struct dl_program *p, uint64_t strsize)
{
	uint64_t sslot = (strsize + 7) & ~7ull, max = 0;

	for (size_t i = 0; i < p->var_cnt; i++) {
		const struct dl_var *v = &p->vars[i];
		if (!v->is_array)
			continue;
		/* the element's header, (variable, thread), the keys, the value */
		uint64_t vsz = v->is_str ? sslot : v->is_ref
			       ? (dl_type_resolve(v->type).t->size + 7) & ~7ull : 8;
		uint64_t sz = sizeof(struct udt_dynvar) + 8 + vsz;
		for (size_t k = 0; k < v->nkeys; k++)
			sz += dl_type_resolve(v->keys[k]).t->kind == DL_STRING ? sslot
			      : 8 * key_regs(v->keys[k]);
		if (sz > max)
			max = sz;
	}
	return max;
}

bool dl_program_uses_mem(const struct dl_program *p)
{
	for (size_t i = 0; i < p->var_cnt; i++)
		if (p->vars[i].is_str || p->vars[i].is_ref || p->vars[i].is_array)
			return true;
	return p->uses_mem;
}

bool dl_node_is_effect(const struct dl_node *x)
{
	return (x->kind == DL_N_BINARY && (x->op == '=' || (x->op >= T_MUL_EQ && x->op <= T_OR_EQ))) ||
	       x->kind == DL_N_POSTFIX || (x->kind == DL_N_UNARY && (x->op == T_INC || x->op == T_DEC)) ||
	       dl_node_is_void_subr(x);
}

static struct dl_var *var_find(struct dl_program *p, enum dl_var_scope scope, const char *name)
{
	for (size_t i = 0; i < p->var_cnt; i++)
		if (p->vars[i].scope == scope && !strcmp(p->vars[i].name, name))
			return &p->vars[i];
	return NULL;
}

static bool same_kinds(const struct dl_var *v, bool is_str, bool array, const struct dl_qtype *keys,
		       size_t nkeys)
{
	if (v->is_str != is_str || v->is_array != array || v->nkeys != nkeys)
		return false;
	for (size_t k = 0; k < nkeys; k++)
		if (is_str(v->keys[k]) != is_str(keys[k]))
			return false;
	return true;
}

/* Add a variable; NULL with *ret_err when its scope has too many of its kind. */
static struct dl_var *var_add(struct dl_program *p, enum dl_var_scope scope, const char *name,
			      struct dl_qtype type, bool array, const struct dl_qtype *keys,
			      size_t nkeys, struct dl_loc loc, const char **ret_err)
{
	struct dl_var nv = { .scope = scope, .name = name, .type = type, .is_array = array,
			     .is_str = is_str(type), .is_ref = dl_cg_is_ref_type(type),
			     .nkeys = nkeys, .loc = loc };
	enum vkind k = kind_of(&nv);
	size_t max = k == VK_ARRAY ? UDT_DV_ID_MASK + 1
		     : scope == DL_VAR_LOCAL ? UDT_MAX_LOCALS
		     : scope == DL_VAR_GLOBAL ? UDT_MAX_GVARS : UDT_MAX_TVARS;

	nv.id = (uint32_t)count(p, scope, k);
	if (nv.id >= max) {
		*ret_err = k == VK_ARRAY ? "too many associative arrays" : "too many variables";
		return NULL;
	}
	if (nkeys) {
		nv.keys = dl_alloc(p, nkeys * sizeof(*keys));
		memcpy(nv.keys, keys, nkeys * sizeof(*keys));
	}
	UDT__PUSH(p->vars, p->var_cnt, p->var_cap, nv);
	return &p->vars[p->var_cnt - 1];
}

struct dl_var *dl_var_declare(struct dl_program *p, enum dl_var_scope scope, const char *name,
			      struct dl_qtype type, bool array, const struct dl_qtype *keys,
			      size_t nkeys, struct dl_loc loc, const char **ret_err)
{
	struct dl_var *v = var_find(p, scope, name);

	if (v) {
		/* the same declaration again is allowed; another is not */
		if (same_kinds(v, is_str(type), array, keys, nkeys) && same_type(v->type, type))
			return v;
		*ret_err = "identifier redeclared";
		return NULL;
	}
	if (array && scope == DL_VAR_LOCAL) {
		*ret_err = "clause-local variables cannot be associative arrays";
		return NULL;
	}
	return var_add(p, scope, name, type, array, keys, nkeys, loc, ret_err);
}

/* -- References -------------------------------------------------------------------------- */

/* A variable as an expression names it: its scope, its name, and its keys when an element. */
struct vref {
	enum dl_var_scope scope;
	const char *name;
	const struct dl_node *elem;  /* the a[k...] node of an element, NULL for a scalar */
};

/* Inline name, unless it is declared after the declaration dl_check_decls() checks. */
static struct dl_inline *inline_of(struct cg *g, const char *name)
{
	struct dl_inline *in = dl_sym_get(&g->p->inlines, name);

	return in && g->decl_limit && in->seq >= g->decl_limit ? NULL : in;
}

/*
 * Is n a variable: x, self->x, this->x, or an element a[k...] or
 * self->a[k...]? (x[i] of an integer or pointer variable x indexes what x
 * points to: that is not a variable.)
 */
static bool var_ref(struct cg *g, const struct dl_node *n, struct vref *ret)
{
	const struct dl_node *base = n->kind == DL_N_INDEX ? n->a : n;
	const struct dl_node *elem = n->kind == DL_N_INDEX ? n : NULL;
	enum dl_var_scope scope;

	if (base->kind == DL_N_IDENT) {
		if (is_reserved(g, base->name) || !strcmp(base->name, "NULL") ||
		    inline_of(g, base->name))
			return false;
		scope = DL_VAR_GLOBAL;
	} else if (base->kind == DL_N_PTRMEMBER && base->a->kind == DL_N_IDENT &&
		   (!strcmp(base->a->name, "self") || !strcmp(base->a->name, "this"))) {
		scope = !strcmp(base->a->name, "self") ? DL_VAR_THREAD : DL_VAR_LOCAL;
	} else {
		return false;
	}
	struct dl_var *v = var_find(g->p, scope, base->name);
	if (elem && v && !v->is_array)
		return false;
	*ret = (struct vref){ scope, base->name, elem };
	return true;
}

bool dl_cg_is_var(struct cg *g, const struct dl_node *n)
{
	struct vref ref;

	return var_ref(g, n, &ref);
}

bool dl_cg_is_global(struct cg *g, const char *id)
{
	return var_find(g->p, DL_VAR_GLOBAL, id) != NULL;
}

/* The variable ref names, which a declaration or an earlier assignment must have made. */
static struct dl_var *var_of(struct cg *g, const struct vref *ref, const struct dl_node *n)
{
	struct dl_var *v = var_find(g->p, ref->scope, ref->name);

	if (!v)
		cg_error(g, n, "failed to resolve %s%s: Unknown variable name", scope_prefix[ref->scope],
			 ref->name);
	if (v->is_array && !ref->elem)
		cg_error(g, n, "array '%s' may not be referenced as scalar", ref->name);
	return v;
}

static uint8_t scalar_op(const struct dl_var *v, bool store)
{
	if (v->is_ref)
		return v->scope == DL_VAR_THREAD ? UDT_OP_LDTA : v->scope == DL_VAR_GLOBAL
		       ? UDT_OP_LDGA : UDT_OP_LDLA;
	if (v->is_str) {
		if (v->scope == DL_VAR_THREAD)
			return store ? UDT_OP_STTS : UDT_OP_LDTS;
		if (v->scope == DL_VAR_GLOBAL)
			return store ? UDT_OP_STGS : UDT_OP_LDGS;
		return store ? UDT_OP_STLS : UDT_OP_LDLS;
	}
	if (v->scope == DL_VAR_THREAD)
		return store ? UDT_OP_STTV : UDT_OP_LDTV;
	if (v->scope == DL_VAR_GLOBAL)
		return store ? UDT_OP_STGV : UDT_OP_LDGV;
	return store ? UDT_OP_STLV : UDT_OP_LDLV;
}

static const char *type_name(struct cg *g, struct dl_qtype t)
{
	return is_str(t) ? "string" : dl_type_cdecl(g->p, t, NULL);
}

bool dl_cg_is_ref_type(struct dl_qtype t)
{
	enum dl_kind k = dl_type_resolve(t).t->kind;

	return k == DL_STRUCT || k == DL_UNION || k == DL_ARRAY;
}

/* The operand of scalar variable v's LD/ST opcode: its number, or its first string slot. */
static int32_t var_index(struct cg *g, const struct dl_var *v, const struct dl_node *n)
{
	if (kind_of(v) != VK_STRING)
		return (int32_t)v->id;
	uint64_t first = slot_index(g->p, v, g->ctx->strsize), max =
		v->scope == DL_VAR_LOCAL ? UDT_MAX_LOCALS : v->scope == DL_VAR_GLOBAL
		? UDT_MAX_GVARS : UDT_MAX_TVARS;
	if (first + slots_of(v, g->ctx->strsize) > max)
		cg_error(g, n, "too many variables: %s%s and those before it take more than %llu "
			 "string slots (of strsize bytes)", scope_prefix[v->scope], v->name,
			 (unsigned long long)max);
	return (int32_t)first;
}


/*
 * n bytes (1 to 8) at the address in ra, plus off, into rd as a little-endian
 * word would hold them (rd may be ra); t1 and t2 are free.
 */
static void load_bytes(struct cg *g, int rd, int ra, int32_t off, unsigned n, int t1, int t2)
{
	static const uint8_t ld[] = { [1] = UDT_OP_LDX8, [2] = UDT_OP_LDX16, [4] = UDT_OP_LDX32,
				      [8] = UDT_OP_LDX64 };
	unsigned done = 0;

	if (ld[n < 9 ? n : 0]) {
		emit(g, ld[n], rd, ra, 0, off);
		return;
	}
	/* 3, 5, 6 or 7 bytes: the largest parts first, each shifted into place in t1 */
	while (done < n) {
		unsigned k = n - done >= 4 ? 4 : n - done >= 2 ? 2 : 1;
		emit(g, ld[k], done ? t2 : t1, ra, 0, off + (int32_t)done);
		if (done) {
			emit(g, UDT_OP_LDI, rd == ra ? t2 + 1 : rd, 0, 0, (int32_t)(8 * done));
			emit(g, UDT_OP_SLL, t2, t2, rd == ra ? t2 + 1 : rd, 0);
			emit(g, UDT_OP_OR, t1, t1, t2, 0);
		}
		done += k;
	}
	emit(g, UDT_OP_MOV, rd, t1, 0, 0);
}

/*
 * The keys of element ref of array v into registers r...: checked against
 * the array's prototype, strings as D strings. Returns LDDV/STDV's imm;
 * *ret_cnt the registers they took.
 */
static int32_t gen_keys(struct cg *g, const struct dl_var *v, const struct vref *ref, int r,
			int *ret_cnt)
{
	const struct dl_node *el = ref->elem;
	size_t k = el->arg_cnt, at = 0;
	uint32_t imm = v->id | (v->scope == DL_VAR_THREAD ? UDT_DV_THREAD : 0) |
		       (v->is_str ? UDT_DV_STRVAL : 0) | (v->is_ref ? UDT_DV_REFVAL : 0);

	if (k != v->nkeys)
		cg_error(g, el, "%s[ ] prototype mismatch: %zu key%s passed, %zu expected", v->name, k,
			 k == 1 ? "" : "s", v->nkeys);
	for (size_t i = 0; i < k; i++)
		at += key_regs(v->keys[i]);
	if (at > UDT_DV_MAX_KEYS)
		cg_error(g, el, "insufficient tuple registers to generate expression");
	dl_cg_need_regs(g, el, r, (int)at);
	at = 0;
	for (size_t i = 0; i < k; i++) {
		int rk = r + (int)at;
		struct val kv = gen(g, el->args[i], rk);
		bool want_str = is_str(v->keys[i]), got_str = dl_cg_is_string(&kv);
		bool want_ref = dl_cg_is_ref_type(v->keys[i]);

		if (want_ref ? !kv.is_addr || !same_type(kv.type, v->keys[i])
			     : want_str != got_str || kv.is_addr ||
			       (!got_str && !is_int(kv.type) && !is_ptr(kv.type)) || kv.xl)
			dl_cg_bad_arg(g, el->args[i], v->name, "key", i, type_name(g, v->keys[i]), &kv);
		if (want_str) {
			dl_cg_dstr(g, &kv, rk, el->args[i]);
			imm |= 1u << (UDT_DV_STRKEYS_SHIFT + at);
		} else if (want_ref) {
			/* its words, the first last (over the address) */
			uint64_t size = dl_type_resolve(v->keys[i]).t->size;
			int nw = (int)key_regs(v->keys[i]);
			dl_cg_need_regs(g, el, rk, nw + 2);
			materialize(g, &kv, rk, el->args[i]);
			for (int w = nw; w-- > 0;) {
				uint64_t n = size - 8 * (uint64_t)w < 8 ? size - 8 * (uint64_t)w : 8;
				load_bytes(g, rk + w, rk, 8 * w, (unsigned)n, rk + nw, rk + nw + 1);
			}
		} else {
			materialize(g, &kv, rk, el->args[i]);
		}
		at += key_regs(v->keys[i]);
	}
	*ret_cnt = (int)at;
	return (int32_t)imm;
}

struct val dl_cg_var_load(struct cg *g, const struct dl_node *n, int r)
{
	struct vref ref;

	if (!var_ref(g, n, &ref))
		cg_error(g, n, "this is not a variable");
	struct dl_var *v = var_of(g, &ref, n);

	dl_cg_need_regs(g, n, r, 0);
	if (v->is_array) {
		int nk;
		int32_t imm = gen_keys(g, v, &ref, r, &nk);
		emit(g, UDT_OP_LDDV, r, r, nk, imm);
	} else {
		emit(g, scalar_op(v, false), r, 0, 0, var_index(g, v, n));
	}
	/* a struct, union or array: its address (an absent element's is 0), in D's memory */
	return (struct val){ .type = v->type, .reg = r, .is_addr = v->is_ref };
}

const struct dl_node *dl_cg_ref_elem(struct cg *g, const struct dl_node *lhs, int r,
				     uint64_t *ret_size)
{
	const struct dl_node *x = lhs;
	struct vref ref;

	/* down the members and array elements, which are inside the object */
	for (;;) {
		if (x->kind == DL_N_MEMBER) {
			x = x->a;
		} else if (x->kind == DL_N_INDEX && !var_ref(g, x, &ref) &&
			   dl_type_resolve(type_of(g, x->a, r)).t->kind == DL_ARRAY) {
			x = x->a;
		} else {
			break;
		}
	}
	if (x == lhs || x->kind != DL_N_INDEX || !var_ref(g, x, &ref))
		return NULL;
	struct dl_var *v = var_find(g->p, ref.scope, ref.name);
	if (!v || !v->is_array || !v->is_ref)
		return NULL;
	*ret_size = dl_type_resolve(v->type).t->size;
	return x;
}

/* -- Assignments -------------------------------------------------------------------------- */

/* Declare the variable of ref, first assigned at n with a value of type t. */
static struct dl_var *declare_at(struct cg *g, const struct dl_node *n, const struct vref *ref,
				 struct dl_qtype t, int r)
{
	struct dl_qtype keys[UDT_DV_MAX_KEYS];
	size_t nkeys = ref->elem ? ref->elem->arg_cnt : 0;
	const char *err = NULL;

	if (nkeys > UDT_DV_MAX_KEYS)
		cg_error(g, ref->elem, "insufficient tuple registers to generate expression");
	if (ref->elem && ref->scope == DL_VAR_LOCAL)
		cg_error(g, n, "this->%s[ ]: clause-local variables cannot be associative arrays",
			 ref->name);
	for (size_t k = 0; k < nkeys; k++) {
		/* a key's type, as its first use has it */
		size_t at = g->n, nc = g->nc;
		if (dl_node_is_action(ref->elem->args[k]))
			cg_error(g, ref->elem->args[k], "a key of type void is not supported");
		struct val kv = gen(g, ref->elem->args[k], r);
		g->n = at;
		g->nc = nc;
		bool ref_key = kv.is_addr && dl_cg_is_ref_type(kv.type) &&
			       dl_type_resolve(kv.type).t->kind != DL_ARRAY;
		keys[k] = dl_cg_is_string(&kv) && !ref_key ? named(g, "string") : kv.type;
		if (!ref_key && !dl_cg_is_string(&kv) && !is_int(kv.type) && !is_ptr(kv.type))
			cg_error(g, ref->elem->args[k], "a key of type %s is not supported",
				 type_name(g, kv.type));
	}
	struct dl_var *v = var_add(g->p, ref->scope, ref->name, t, ref->elem != NULL, keys, nkeys,
				   n->loc, &err);
	if (!v)
		cg_error(g, n, "%s", err);
	return v;
}

/* May a value v be stored in variable var? (As D's assignment checks its operands.) */
static void check_store(struct cg *g, const struct dl_node *n, const struct dl_var *var,
			const struct val *v)
{
	bool vs = dl_cg_is_string(v), null = v->is_const && !v->cstr && !v->cval;

	/* (0 deletes an array's element, whatever its values are) */
	if (var->is_array && var->is_ref && null)
		return;
	if (!dl_cg_assignable(g, var->type, v) ||
	    (var->is_ref && dl_type_resolve(var->type).t->kind == DL_ARRAY && vs))
		cg_error(g, n, "operands have incompatible types: \"%s\" = \"%s\"",
			 type_name(g, var->type), vs ? "string" : type_name(g, v->type));
}

/* Store v (in r, or a constant) into the variable of ref (var); the value stored, in r. */
static struct val store(struct cg *g, const struct dl_node *n, const struct vref *ref,
			const struct dl_var *var, struct val v, int r)
{
	uint64_t size = dl_type_resolve(var->type).t->size;

	if (var->is_str && !(v.is_const && !v.cstr))
		dl_cg_dstr(g, &v, r, n);
	materialize(g, &v, r, n);
	/* (a scalar variable keeps the whole register, as illumos's STV stores it: no
	   narrowing to its type, which a record of it applies; an array's element too) */
	if (var->is_array) {
		/* a value of bytes: their address in r, their size after the keys */
		int nk;
		int32_t imm = gen_keys(g, var, ref, r + 1, &nk);
		if (var->is_ref) {
			struct val sz = constant(named(g, "size_t"), (int64_t)size);
			dl_cg_need_regs(g, n, r + 1, nk);
			materialize(g, &sz, r + 1 + nk, n);
		}
		emit(g, UDT_OP_STDV, r, r + 1, nk, imm);
	} else if (var->is_ref) {
		/* a struct, union or array variable: the bytes copied in (bcopy()) */
		struct val sz = constant(named(g, "size_t"), (int64_t)size);
		dl_cg_need_regs(g, n, r, 2);
		emit(g, scalar_op(var, false), r + 1, 0, 0, var_index(g, var, n));
		materialize(g, &sz, r + 2, n);
		dl_cg_call(g, UDT_CALL_BCOPY, r, 3);
		emit(g, UDT_OP_MOV, r, r + 1, 0, 0);
		return (struct val){ .type = var->type, .reg = r, .is_addr = true };
	} else {
		emit(g, scalar_op(var, true), 0, r, 0, var_index(g, var, n));
	}
	return (struct val){ .type = var->type, .reg = r, .is_addr = var->is_ref };
}

void dl_cg_ref_elem_put(struct cg *g, const struct dl_node *elem, int rbuf)
{
	struct vref ref;

	(void)var_ref(g, elem, &ref);
	struct dl_var *v = var_of(g, &ref, elem);
	(void)store(g, elem, &ref, v, (struct val){ .type = v->type, .reg = rbuf, .is_addr = true },
		    rbuf);
}

/* x = e, and x op= e (a[k] = e, self->s = "..."): the value stored, in r. */
struct val dl_cg_assign(struct cg *g, const struct dl_node *n, int r)
{
	struct vref ref;
	struct val v;

	if (!var_ref(g, n->a, &ref))
		return dl_cg_assign_lval(g, n, r); /* a member, an element, *p */
	dl_cg_need_regs(g, n, r, 1);
	if (n->op == '=') {
		v = gen(g, n->b, r);
	} else {
		/* x op= e declares x as D does, with the type of e, and starts it at 0 */
		if (!var_find(g->p, ref.scope, ref.name))
			declare_at(g, n, &ref, promote(g, type_of(g, n->b, r)), r);
		struct dl_node b = dl_cg_compound_op(n);
		v = gen_binary(g, &b, r);
	}
	if (v.xl)
		cg_error(g, n, "a translated %s must be used through its members",
			 dl_type_cdecl(g->p, v.type, NULL));
	if (!dl_cg_is_string(&v) && !is_int(v.type) && !is_ptr(v.type) &&
	    !dl_cg_is_float(v.type) && !(v.is_addr && dl_cg_is_ref_type(v.type)))
		cg_error(g, n, "variables of type %s are not supported",
			 dl_type_cdecl(g->p, v.type, NULL));
	if (v.is_addr && dl_cg_is_ref_type(v.type) && !dl_type_resolve(v.type).t->size)
		cg_error(g, n, "a variable of type %s takes no bytes",
			 dl_type_cdecl(g->p, v.type, NULL));
	struct dl_var *var = var_find(g->p, ref.scope, ref.name);
	if (!var)
		var = declare_at(g, n, &ref, dl_cg_is_string(&v) ? named(g, "string") : v.type, r + 1);
	else
		var = var_of(g, &ref, n->a);
	check_store(g, n, var, &v);
	return store(g, n, &ref, var, v, r);
}

/* ++x, --x (the new value) and x++, x-- (the old one), in r; x may be an element. */
struct val dl_cg_incdec(struct cg *g, const struct dl_node *n, int r, bool post)
{
	struct vref ref;

	if (!var_ref(g, n->a, &ref))
		return dl_cg_incdec_lval(g, n, r, post); /* a member, an element, *p */
	/* x++ declares an int x, as D does */
	if (!var_find(g->p, ref.scope, ref.name))
		declare_at(g, n, &ref, named(g, "int"), r);
	struct dl_var *v = var_of(g, &ref, n->a);

	if (v->is_str || !is_int(v->type))
		cg_error(g, n, "operator %s requires an integer variable here", dl_op_name(n->op));
	dl_cg_need_regs(g, n, r, 2);
	(void)dl_cg_var_load(g, n->a, r);
	emit(g, UDT_OP_LDI, r + 1, 0, 0, 1);
	emit(g, n->op == T_INC ? UDT_OP_ADD : UDT_OP_SUB, r + 1, r, r + 1, 0);
	(void)store(g, n, &ref, v, (struct val){ .type = v->type, .reg = r + 1 }, r + 1);
	if (!post)
		emit(g, UDT_OP_MOV, r, r + 1, 0, 0);
	return (struct val){ .type = v->type, .reg = r };
}

/* -- Inlines ------------------------------------------------------------------------------------ */

/* The value v of inline in's expression, converted to its type (the use, or the definition, at n). */
static struct val inline_value(struct cg *g, const struct dl_inline *in, struct val v,
			       const struct dl_node *n)
{
	bool vs = dl_cg_is_string(&v);

	if (!dl_cg_assignable(g, in->type, &v))
		cg_error(g, n, "inline %s definition uses incompatible types: \"%s\" = \"%s\"",
			 in->name, type_name(g, in->type), vs ? "string" : type_name(g, v.type));
	if (vs)
		return v;
	if (v.is_const)
		return constant(in->type, v.cval);
	norm_reg(g, in->type, v.reg);
	v.type = in->type;
	return v;
}

bool dl_cg_inline(struct cg *g, const struct dl_node *n, int r, struct val *ret)
{
	struct dl_inline *in = inline_of(g, n->name);

	if (!in)
		return false;
	/* an inline is its expression, compiled where it is used, converted to its type:
	   bounded in depth (each level is a recursion here) and in all (inlines that use
	   another twice double with each level) */
	for (int i = 0; i < g->inline_depth; i++)
		if (g->inline_stack[i] == in)
			cg_error(g, n, "inline %s is defined in terms of itself", n->name);
	if (g->inline_depth >= DL_MAX_NESTING)
		cg_error(g, n, "inline %s: inlines nested too deeply: more than %d levels", n->name,
			 DL_MAX_NESTING);
	if (++g->inline_uses > 65536)
		cg_error(g, n, "inline %s: more than 65536 inline expansions in one clause", n->name);
	g->inline_stack[g->inline_depth++] = in;
	struct val v = gen(g, in->expr, r);
	g->inline_depth--;
	*ret = inline_value(g, in, v, n);
	return true;
}

void dl_cg_check_inline(struct cg *g, struct dl_inline *in)
{
	/* (at the declaration, as DTrace reports it) */
	struct dl_node at = { .kind = DL_N_IDENT, .name = in->name, .loc = in->loc };
	struct dl_var *v = var_find(g->p, DL_VAR_GLOBAL, in->name);

	if (is_reserved(g, in->name) || dl_cg_is_subr_name(in->name) || v)
		cg_error(g, &at, "identifier redefined: %s\n\t current: inline definition\n"
			 "\tprevious: %s ", in->name, dl_cg_is_subr_name(in->name) ? "function"
			 : v && v->is_array ? "associative array" : "scalar");
	/* what is declared before it only: not itself */
	g->decl_limit = in->seq;
	(void)inline_value(g, in, gen(g, in->expr, 0), &at);
}

bool dl_cg_assignable(struct cg *g, struct dl_qtype want, const struct val *v)
{
	struct dl_qtype w = dl_type_resolve(want);
	bool vs = dl_cg_is_string(v), null = v->is_const && !v->cstr && !v->cval;
	const struct dl_type *el;

	(void)g;
	if (v->xl)
		return false;
	switch (w.t->kind) {
	case DL_STRING:
		return vs || null;
	case DL_INT:
	case DL_ENUM:
		return !vs && is_int(v->type);
	case DL_PTR:
		return null || (!vs && is_ptr(v->type));
	case DL_FLOAT:
		return !vs && dl_type_resolve(v->type).t->kind == DL_FLOAT;
	case DL_ARRAY:
		/* a char array takes a string */
		el = dl_type_resolve(w.t->ref).t;
		if (vs && el->kind == DL_INT && el->size == 1)
			return true;
		return v->is_addr && same_type(want, v->type);
	case DL_STRUCT:
	case DL_UNION:
		return v->is_addr && same_type(want, v->type);
	default:
		return false;
	}
}

const char *dl_node_name(const struct dl_node *x)
{
	while (x) {
		switch (x->kind) {
		case DL_N_IDENT:
		case DL_N_MEMBER:
		case DL_N_PTRMEMBER:
		case DL_N_MACRO:
		case DL_N_AGG:
			return x->name && *x->name ? x->name : NULL;
		case DL_N_CALL:
			/* copyinstr(p), stringof(s)...: what they read; ustack(), rand(): the call */
			if (x->arg_cnt && (!strcmp(x->a->name, "copyinstr") ||
					   !strcmp(x->a->name, "copyin") || !strcmp(x->a->name, "stringof") ||
					   !strcmp(x->a->name, "copyinto"))) {
				x = x->args[0];
				continue;
			}
			return x->a && x->a->kind == DL_N_IDENT ? x->a->name : NULL;
		case DL_N_INDEX:
			/* args[1]: "args1" would be a new name; the array's own is clearer */
			x = x->a;
			continue;
		case DL_N_CAST:
		case DL_N_STRINGOF:
		case DL_N_XLATE:
		case DL_N_UNARY:
		case DL_N_POSTFIX:
			x = x->a;
			continue;
		default:
			return NULL;
		}
	}
	return NULL;
}
