/* SPDX-License-Identifier: MIT */
/*
 * The D parser: declarations, providers, translators, pragmas and clauses.
 *
 * A recursive-descent parser over the lexer's tokens with one token of
 * lookahead. It accepts what real provider definitions contain (see
 * ../shared/corpus): C declarations before or after the provider (typedef,
 * struct, union, enum, forward declarations completed later), translator
 * blocks, "#pragma D" lines, several providers per file, empty providers,
 * probes with native and translated argument lists, and script clauses (so
 * CPython's configure check, "BEGIN{}", goes through -G).
 *
 * Declarators follow C: a declarator is parsed into a list of derivations
 * (pointer, array, function) in the order they apply to the base type, so
 * "int (*cb)(int)" and "char *argv[]" come out right without a second pass.
 *
 * The first error ends the parse: dl_error() formats the message and
 * longjmps to dl_parse(). Everything allocated lives in the program's arena,
 * so nothing leaks on that path.
 *
 * Probe arguments are checked here, once, for every tool: a native argument
 * must be an integer or a pointer (that is what a probe site can pass in a
 * register and what the SystemTap note can describe), there are at most
 * DL_MAX_ARGS of them, and every translated argument must name a native one.
 */
#include "dlang/internal.h"
#include "abi/bytecode.h"
#include "util/util.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Most native arguments a probe may take (the SystemTap note and sdt.h limit). */
#define DL_MAX_ARGS 12
/* Most translated arguments (args[] is indexed by a byte in the probe table). */
#define DL_MAX_XARGS 32

/* -- Errors and token handling ---------------------------------------------------------- */

_Noreturn void dl_verror(struct dl_program *p, struct dl_loc loc, const char *fmt, va_list ap)
{
	struct udt_strbuf sb = { 0 };

	if (loc.file)
		udt__sb_printf(&sb, "%s:%d:%d: error: ", loc.file, loc.line, loc.col);
	else
		udt__sb_puts(&sb, "error: ");
	udt__sb_vprintf(&sb, fmt, ap);
	free(p->errmsg);
	p->errmsg = udt__sb_take(&sb);
	longjmp(*p->jb, 1);
}

_Noreturn void dl_error(struct dl_parser *ps, struct dl_loc loc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	dl_verror(ps->p, loc, fmt, ap);
}

void dl_nest(struct dl_parser *ps, struct dl_loc loc)
{
	if (++ps->depth > DL_MAX_NESTING)
		dl_error(ps, loc, "nested too deeply: more than %d levels of expressions, statements "
			 "or declarators", DL_MAX_NESTING);
}

void dl_check_type_depth(struct dl_parser *ps, struct dl_qtype t, struct dl_loc loc)
{
	if (dl_type_depth(t) > DL_MAX_NESTING)
		dl_error(ps, loc, "type nested too deeply: more than %d levels of pointers, arrays, "
			 "functions and typedefs", DL_MAX_NESTING);
}

void dl_advance(struct dl_parser *ps)
{
	if (ps->have_ahead) {
		ps->tok = ps->ahead;
		ps->have_ahead = false;
	} else {
		dl_lex_next(&ps->lx, &ps->tok);
	}
}

const struct dl_token *dl_peek(struct dl_parser *ps)
{
	if (!ps->have_ahead) {
		dl_lex_next(&ps->lx, &ps->ahead);
		ps->have_ahead = true;
	}
	return &ps->ahead;
}

bool dl_accept(struct dl_parser *ps, int kind)
{
	if (ps->tok.kind != kind)
		return false;
	dl_advance(ps);
	return true;
}

static const char *tok_desc(const struct dl_token *t)
{
	if (t->kind == T_EOF)
		return "end of file";
	if (t->kind == T_STRING)
		return "string constant";
	if (t->text && t->kind != T_PRAGMA)
		return t->text;
	return dl_tok_name(t->kind);
}

void dl_expect(struct dl_parser *ps, int kind, const char *what)
{
	if (ps->tok.kind == kind) {
		dl_advance(ps);
		return;
	}
	if (ps->tok.kind == T_EOF)
		dl_error(ps, ps->tok.loc, "syntax error: expected %s before end of file", what);
	dl_error(ps, ps->tok.loc, "syntax error: expected %s before \"%s\"", what,
		 tok_desc(&ps->tok));
}

/* Identifiers, and the D-only keywords that C code uses as names ("string", "this"). */
static bool is_name_tok(int kind)
{
	switch (kind) {
	case T_IDENT:
	case K_STRING: case K_SELF: case K_THIS: case K_PROBE: case K_PROVIDER:
	case K_COUNTER: case K_USERLAND: case K_IMPORT: case K_TRANSLATOR: case K_XLATE:
	case K_STRINGOF: case K_OFFSETOF:
		return true;
	default:
		return false;
	}
}

static const char *name_text(const struct dl_token *t)
{
	return t->kind == T_IDENT ? t->text : dl_tok_name(t->kind);
}

/* Names after "probe" and "provider": any word, keywords included. */
static bool is_word_tok(int kind)
{
	return kind == T_IDENT || (kind >= T_KW_FIRST && kind < T_KW_LAST);
}

bool dl_tok_starts_type(struct dl_parser *ps, const struct dl_token *t)
{
	switch (t->kind) {
	case K_VOID: case K_CHAR: case K_SHORT: case K_INT: case K_LONG: case K_SIGNED:
	case K_UNSIGNED: case K_FLOAT: case K_DOUBLE: case K_BOOL: case K_STRING:
	case K_STRUCT: case K_UNION: case K_ENUM: case K_CONST: case K_VOLATILE:
	case K_RESTRICT: case K_USERLAND:
		return true;
	case T_IDENT:
		return dl_lookup_typedef(ps->p, t->text) != NULL;
	default:
		return false;
	}
}

/* -- Declaration specifiers ------------------------------------------------------------- */

enum storage {
	ST_NONE,
	ST_TYPEDEF,
	ST_EXTERN,
	ST_STATIC,
	ST_INLINE,
	ST_SELF,
	ST_THIS,
};

struct specs {
	struct dl_qtype type;
	enum storage storage;
	struct dl_loc loc;
	bool defined_tag;     /* a struct/union/enum body was given */
	bool c_inline;        /* C's "inline" beside "static" or "extern": a function follows */
};

static void parse_struct_body(struct dl_parser *ps, struct dl_type *t);
static void parse_enum_body(struct dl_parser *ps, struct dl_type *t);
static struct dl_qtype parse_declarator(struct dl_parser *ps, struct dl_qtype base,
					const char **ret_name, struct dl_loc *ret_loc,
					bool allow_abstract);

static struct dl_type *tag_type(struct dl_parser *ps, enum dl_kind kind, const char *tag,
				struct dl_loc loc, bool defining)
{
	struct dl_type *t = dl_lookup_tag(ps->p, kind, tag);

	if (!t) {
		/* Look for the tag under the other aggregate kinds: "struct x" vs "union x". */
		enum dl_kind others[] = { DL_STRUCT, DL_UNION, DL_ENUM };
		for (size_t i = 0; i < 3; i++) {
			struct dl_type *o = others[i] != kind ? dl_lookup_tag(ps->p, others[i], tag)
							      : NULL;
			if (o)
				dl_error(ps, loc, "'%s' was declared as %s %s at %s:%d", tag,
					 o->kind == DL_STRUCT ? "struct" :
					 o->kind == DL_UNION ? "union" : "enum",
					 tag, o->loc.file, o->loc.line);
		}
		t = dl_type_new(ps->p, kind, loc);
		t->name = tag;
		t->align = 1;
		dl_sym_put(ps->p, &ps->p->tags, dl_tag_key(ps->p, kind, tag), t);
	} else if (defining && t->complete) {
		dl_error(ps, loc, "%s %s is already defined at %s:%d",
			 kind == DL_STRUCT ? "struct" : kind == DL_UNION ? "union" : "enum", tag,
			 t->loc.file, t->loc.line);
	}
	if (defining)
		t->loc = loc;
	return t;
}

static void parse_specifiers(struct dl_parser *ps, struct specs *sp, bool allow_storage)
{
	int n_signed = 0, n_unsigned = 0, n_short = 0, n_long = 0, n_char = 0, n_int = 0;
	int n_void = 0, n_float = 0, n_double = 0, n_bool = 0, n_string = 0;
	struct dl_type *named = NULL;
	unsigned quals = 0;

	memset(sp, 0, sizeof(*sp));
	sp->loc = ps->tok.loc;
	for (;;) {
		struct dl_token t = ps->tok;
		bool have_base = named || n_char || n_int || n_void || n_float || n_double ||
				 n_bool || n_string || n_short || n_long || n_signed || n_unsigned;

		switch (t.kind) {
		case K_CONST: quals |= DL_Q_CONST; break;
		case K_VOLATILE: quals |= DL_Q_VOLATILE; break;
		case K_RESTRICT: quals |= DL_Q_RESTRICT; break;
		case K_USERLAND: break; /* D's userland qualifier: no effect on layout */
		case K_TYPEDEF: case K_EXTERN: case K_STATIC: case K_INLINE: case K_REGISTER:
		case K_AUTO: case K_SELF: case K_THIS: {
			/* "self->x" starts an expression, not a declaration */
			if ((t.kind == K_SELF || t.kind == K_THIS) && dl_peek(ps)->kind == T_ARROW)
				goto done;
			if (!allow_storage)
				dl_error(ps, t.loc, "storage class '%s' is not allowed here",
					 dl_tok_name(t.kind));
			enum storage cls = t.kind == K_TYPEDEF ? ST_TYPEDEF : t.kind == K_EXTERN ? ST_EXTERN
				      : t.kind == K_STATIC ? ST_STATIC : t.kind == K_INLINE ? ST_INLINE
				      : t.kind == K_SELF ? ST_SELF : t.kind == K_THIS ? ST_THIS
				      : ST_NONE;
			/* C's "static inline" and "extern inline" functions (system headers) */
			if ((cls == ST_INLINE && (sp->storage == ST_STATIC || sp->storage == ST_EXTERN)) ||
			    (sp->storage == ST_INLINE && (cls == ST_STATIC || cls == ST_EXTERN))) {
				sp->c_inline = true;
				if (cls == ST_INLINE)
					break;
				sp->storage = ST_NONE;
			}
			if (sp->storage != ST_NONE)
				dl_error(ps, t.loc, "more than one storage class given");
			sp->storage = cls;
			break;
		}
		case K_VOID: n_void++; break;
		case K_CHAR: n_char++; break;
		case K_SHORT: n_short++; break;
		case K_INT: n_int++; break;
		case K_LONG: n_long++; break;
		case K_SIGNED: n_signed++; break;
		case K_UNSIGNED: n_unsigned++; break;
		case K_FLOAT: n_float++; break;
		case K_DOUBLE: n_double++; break;
		case K_BOOL: n_bool++; break;
		case K_STRING:
			if (have_base)
				goto done; /* "const char *string": a name */
			n_string++;
			break;
		case K_STRUCT:
		case K_UNION:
		case K_ENUM: {
			enum dl_kind kind = t.kind == K_STRUCT ? DL_STRUCT :
					    t.kind == K_UNION ? DL_UNION : DL_ENUM;
			struct dl_type *st;

			if (have_base)
				dl_error(ps, t.loc, "two or more data types in declaration specifiers");
			dl_advance(ps);
			if (is_name_tok(ps->tok.kind)) {
				const char *tag = name_text(&ps->tok);
				struct dl_loc tloc = ps->tok.loc;

				dl_advance(ps);
				st = tag_type(ps, kind, tag, tloc, ps->tok.kind == '{');
			} else if (ps->tok.kind == '{') {
				st = dl_type_new(ps->p, kind, t.loc);
				st->align = 1;
			} else {
				dl_error(ps, ps->tok.loc, "expected a tag or '{' after '%s'",
					 dl_tok_name(t.kind));
			}
			if (ps->tok.kind == '{') {
				if (kind == DL_ENUM)
					parse_enum_body(ps, st);
				else
					parse_struct_body(ps, st);
				sp->defined_tag = true;
			}
			named = st;
			continue; /* the body parsers have advanced */
		}
		case T_IDENT:
			if (!have_base) {
				struct dl_type *td = dl_lookup_typedef(ps->p, t.text);
				if (td) {
					named = td;
					break;
				}
			}
			goto done;
		default:
			goto done;
		}
		dl_advance(ps);
	}
done:
	if (named) {
		if (n_char || n_int || n_void || n_float || n_double || n_bool || n_string ||
		    n_short || n_long || n_signed || n_unsigned)
			dl_error(ps, sp->loc, "two or more data types in declaration specifiers");
		sp->type = (struct dl_qtype){ named, quals };
		return;
	}
	const char *spelling = NULL;
	int kinds = !!n_void + !!n_char + !!n_float + !!n_double + !!n_bool + !!n_string;

	if (n_signed && n_unsigned)
		dl_error(ps, sp->loc, "both signed and unsigned in declaration specifiers");
	if (kinds > 1 || n_signed > 1 || n_unsigned > 1 || n_short > 1 || n_long > 2 ||
	    n_char > 1 || n_int > 1 || (n_short && n_long))
		dl_error(ps, sp->loc, "invalid combination of type specifiers");
	if (n_void || n_float || n_bool || n_string) {
		if (n_short || n_long || n_signed || n_unsigned || n_int)
			dl_error(ps, sp->loc, "invalid combination of type specifiers");
		spelling = n_void ? "void" : n_float ? "float" : n_bool ? "_Bool" : "string";
	} else if (n_double) {
		if (n_short || n_signed || n_unsigned || n_int || n_long > 1)
			dl_error(ps, sp->loc, "invalid combination of type specifiers");
		spelling = n_long ? "long double" : "double";
	} else if (n_char) {
		if (n_short || n_long || n_int)
			dl_error(ps, sp->loc, "invalid combination of type specifiers");
		spelling = n_signed ? "signed char" : n_unsigned ? "unsigned char" : "char";
	} else if (n_short) {
		spelling = n_unsigned ? "unsigned short" : "short";
	} else if (n_long == 2) {
		spelling = n_unsigned ? "unsigned long long" : "long long";
	} else if (n_long == 1) {
		spelling = n_unsigned ? "unsigned long" : "long";
	} else if (n_int || n_signed || n_unsigned) {
		spelling = n_unsigned ? "unsigned int" : "int";
	}
	/* a storage class and no type ("self x;", "this x;", "static x;"): int, as in DTrace */
	if (!spelling && sp->storage != ST_NONE && sp->storage != ST_TYPEDEF)
		spelling = "int";
	if (!spelling) {
		if (ps->tok.kind == T_IDENT)
			dl_error(ps, ps->tok.loc, "unknown type name '%s'%s", ps->tok.text,
				 dl_lex_cpp_hint(&ps->lx, ps->tok.text));
		dl_error(ps, ps->tok.loc, "syntax error: expected a type before \"%s\"",
			 tok_desc(&ps->tok));
	}
	sp->type = (struct dl_qtype){ dl_lookup_typedef(ps->p, spelling), quals };
}

/* -- Declarators ----------------------------------------------------------------------------- */

enum dop_kind { DOP_PTR, DOP_ARRAY, DOP_FUNC };

struct dop {
	enum dop_kind kind;
	unsigned quals;          /* PTR: the pointer's own qualifiers */
	uint64_t n;              /* ARRAY */
	struct dl_param *params; /* FUNC */
	size_t param_cnt;
	bool varargs;
	bool proto;
	struct dl_loc loc;
};

struct doplist {
	struct dop *v;
	size_t cnt, cap;
};

static void parse_params(struct dl_parser *ps, struct dop *f);

/* After '(' in a declarator: does a nested declarator follow (rather than parameters)? */
static bool nested_declarator_follows(struct dl_parser *ps)
{
	const struct dl_token *t = dl_peek(ps);

	if (t->kind == '*' || t->kind == '(' || t->kind == '[')
		return true;
	if (t->kind == T_IDENT && !dl_lookup_typedef(ps->p, t->text))
		return true;
	return false;
}

static void parse_dops(struct dl_parser *ps, struct doplist *out, const char **ret_name,
		       struct dl_loc *ret_loc, bool allow_abstract)
{
	struct doplist ptrs = { 0 }, inner = { 0 }, suff = { 0 };

	dl_nest(ps, ps->tok.loc);
	while (ps->tok.kind == '*') {
		struct dop d = { .kind = DOP_PTR, .loc = ps->tok.loc };

		dl_advance(ps);
		for (;;) {
			if (ps->tok.kind == K_CONST)
				d.quals |= DL_Q_CONST;
			else if (ps->tok.kind == K_VOLATILE)
				d.quals |= DL_Q_VOLATILE;
			else if (ps->tok.kind == K_RESTRICT)
				d.quals |= DL_Q_RESTRICT;
			else
				break;
			dl_advance(ps);
		}
		DL_PUSH(ps->p, ptrs.v, ptrs.cnt, ptrs.cap, d);
	}
	if (ps->tok.kind == '(' && nested_declarator_follows(ps)) {
		dl_advance(ps);
		parse_dops(ps, &inner, ret_name, ret_loc, allow_abstract);
		dl_expect(ps, ')', "')' in declarator");
	} else if (is_name_tok(ps->tok.kind)) {
		*ret_name = name_text(&ps->tok);
		*ret_loc = ps->tok.loc;
		dl_advance(ps);
	} else if (!allow_abstract) {
		dl_error(ps, ps->tok.loc, "syntax error: expected a name before \"%s\"",
			 tok_desc(&ps->tok));
	}
	for (;;) {
		if (ps->tok.kind == '[' && dl_tok_starts_type(ps, dl_peek(ps)) &&
		    dl_peek(ps)->kind != K_RESTRICT) {
			/* D's associative array: "int a[int, string]", its keys' types */
			dl_advance(ps);
			ps->assoc = true;
			ps->assoc_key_cnt = 0;
			size_t cap = 0;
			do {
				DL_PUSH(ps->p, ps->assoc_keys, ps->assoc_key_cnt, cap,
					dl_parse_type_name(ps));
			} while (dl_accept(ps, ','));
			dl_expect(ps, ']', "']'");
		} else if (ps->tok.kind == '[') {
			struct dop d = { .kind = DOP_ARRAY, .loc = ps->tok.loc };

			dl_advance(ps);
			/* a parameter's "[restrict]" or "[static 4]" (C99, system headers) */
			while (ps->tok.kind == K_CONST || ps->tok.kind == K_VOLATILE ||
			       ps->tok.kind == K_RESTRICT || ps->tok.kind == K_STATIC)
				dl_advance(ps);
			if (ps->tok.kind != ']') {
				struct dl_node *e = dl_parse_assign_expr(ps);
				int64_t v = dl_eval_const(ps, e);
				/* GNU C's "[0]" is a flexible array member, as "[]" */
				if (v < 0)
					dl_error(ps, e->loc, "array size must not be negative");
				d.n = (uint64_t)v;
			}
			dl_expect(ps, ']', "']'");
			DL_PUSH(ps->p, suff.v, suff.cnt, suff.cap, d);
		} else if (ps->tok.kind == '(') {
			struct dop d = { .kind = DOP_FUNC, .loc = ps->tok.loc };

			dl_advance(ps);
			parse_params(ps, &d);
			DL_PUSH(ps->p, suff.v, suff.cnt, suff.cap, d);
		} else {
			break;
		}
	}
	/* Application order: pointers, then suffixes right to left, then the inner declarator. */
	for (size_t i = 0; i < ptrs.cnt; i++)
		DL_PUSH(ps->p, out->v, out->cnt, out->cap, ptrs.v[i]);
	for (size_t i = suff.cnt; i-- > 0;)
		DL_PUSH(ps->p, out->v, out->cnt, out->cap, suff.v[i]);
	for (size_t i = 0; i < inner.cnt; i++)
		DL_PUSH(ps->p, out->v, out->cnt, out->cap, inner.v[i]);
	dl_unnest(ps);
}

static struct dl_qtype apply_dops(struct dl_parser *ps, struct dl_qtype base,
				  const struct doplist *l)
{
	for (size_t i = 0; i < l->cnt; i++) {
		const struct dop *d = &l->v[i];
		struct dl_qtype r = dl_type_resolve(base);

		switch (d->kind) {
		case DOP_PTR:
			base = (struct dl_qtype){ dl_type_ptr(ps->p, base), d->quals };
			break;
		case DOP_ARRAY:
			if (r.t->kind == DL_FUNC)
				dl_error(ps, d->loc, "declaration of an array of functions");
			if (r.t->kind == DL_VOID)
				dl_error(ps, d->loc, "declaration of an array of voids");
			base = (struct dl_qtype){ dl_type_array(ps->p, base, d->n), 0 };
			break;
		case DOP_FUNC: {
			if (r.t->kind == DL_FUNC || r.t->kind == DL_ARRAY)
				dl_error(ps, d->loc, "function returning %s",
					 r.t->kind == DL_FUNC ? "a function" : "an array");
			struct dl_type *f = dl_type_new(ps->p, DL_FUNC, d->loc);
			f->ref = base;
			f->params = d->params;
			f->param_cnt = d->param_cnt;
			f->varargs = d->varargs;
			f->proto = d->proto;
			f->align = 1;
			f->depth = dl_type_depth(base);
			for (size_t k = 0; k < f->param_cnt; k++)
				if (dl_type_depth(f->params[k].type) > f->depth)
					f->depth = dl_type_depth(f->params[k].type);
			f->depth++;
			base = (struct dl_qtype){ f, 0 };
			break;
		}
		}
		dl_check_type_depth(ps, base, d->loc);
	}
	return base;
}

static struct dl_qtype parse_declarator(struct dl_parser *ps, struct dl_qtype base,
					const char **ret_name, struct dl_loc *ret_loc,
					bool allow_abstract)
{
	struct doplist l = { 0 };

	*ret_name = NULL;
	*ret_loc = ps->tok.loc;
	parse_dops(ps, &l, ret_name, ret_loc, allow_abstract);
	return apply_dops(ps, base, &l);
}

struct dl_qtype dl_parse_type_name(struct dl_parser *ps)
{
	struct specs sp;
	const char *name;
	struct dl_loc loc;

	parse_specifiers(ps, &sp, false);
	struct dl_qtype t = parse_declarator(ps, sp.type, &name, &loc, true);
	if (name)
		dl_error(ps, loc, "unexpected name '%s' in a type name", name);
	return t;
}

/* One parameter: specifiers and a (possibly abstract) declarator. */
static struct dl_param parse_param(struct dl_parser *ps)
{
	struct specs sp;
	struct dl_param prm = { 0 };

	prm.loc = ps->tok.loc;
	parse_specifiers(ps, &sp, false);
	prm.type = parse_declarator(ps, sp.type, &prm.name, &prm.loc, true);
	if (!prm.name)
		prm.loc = sp.loc;
	return prm;
}

/* After '(': a parameter list up to and including ')'. */
static void parse_params(struct dl_parser *ps, struct dop *f)
{
	size_t cap = 0;

	f->proto = true;
	if (ps->tok.kind == ')') {
		f->proto = false;
		dl_advance(ps);
		return;
	}
	if (ps->tok.kind == K_VOID && dl_peek(ps)->kind == ')') {
		dl_advance(ps);
		dl_advance(ps);
		return;
	}
	for (;;) {
		if (ps->tok.kind == T_ELLIPSIS) {
			if (!f->param_cnt)
				dl_error(ps, ps->tok.loc, "'...' needs a named parameter before it");
			f->varargs = true;
			dl_advance(ps);
			break;
		}
		struct dl_param prm = parse_param(ps);
		if (dl_type_resolve(prm.type).t->kind == DL_VOID)
			dl_error(ps, prm.loc, "'void' must be the only parameter");
		DL_PUSH(ps->p, f->params, f->param_cnt, cap, prm);
		if (!dl_accept(ps, ','))
			break;
	}
	dl_expect(ps, ')', "')' after parameters");
}

/* -- struct, union and enum bodies ----------------------------------------------------------------- */

static void parse_struct_body(struct dl_parser *ps, struct dl_type *t)
{
	struct dl_member *members = NULL;
	size_t cnt = 0, cap = 0;
	const char *kw = t->kind == DL_STRUCT ? "struct" : "union";

	dl_nest(ps, ps->tok.loc);
	dl_expect(ps, '{', "'{'");
	while (ps->tok.kind != '}') {
		struct specs sp;

		if (ps->tok.kind == T_EOF)
			dl_error(ps, ps->tok.loc, "syntax error: unterminated %s definition", kw);
		if (ps->tok.kind == T_PRAGMA) {
			dl_advance(ps);
			continue;
		}
		parse_specifiers(ps, &sp, false);
		if (ps->tok.kind == ';') {
			/* an anonymous struct or union member, or a bare tag declaration */
			struct dl_qtype r = dl_type_resolve(sp.type);
			if ((r.t->kind == DL_STRUCT || r.t->kind == DL_UNION) && !r.t->name) {
				struct dl_member m = { .name = NULL, .type = sp.type };
				DL_PUSH(ps->p, members, cnt, cap, m);
			}
			dl_advance(ps);
			continue;
		}
		for (;;) {
			struct dl_member m = { 0 };
			struct dl_loc loc = ps->tok.loc;
			const char *name = NULL;

			if (ps->tok.kind == ':') {
				m.type = sp.type;
			} else {
				m.type = parse_declarator(ps, sp.type, &name, &loc, false);
			}
			m.name = name;
			struct dl_qtype r = dl_type_resolve(m.type);
			if (dl_accept(ps, ':')) {
				struct dl_node *e = dl_parse_assign_expr(ps);
				int64_t w = dl_eval_const(ps, e);
				if (r.t->kind != DL_INT && r.t->kind != DL_ENUM)
					dl_error(ps, loc, "bit-field '%s' has a non-integer type",
						 name ? name : "");
				if (w < 0 || (uint64_t)w > r.t->size * 8)
					dl_error(ps, e->loc, "bit-field width %lld is invalid",
						 (long long)w);
				if (w == 0 && name)
					dl_error(ps, e->loc, "zero-width bit-field '%s'", name);
				m.bit_width = (uint8_t)w;
			} else if (r.t->kind == DL_FUNC) {
				dl_error(ps, loc, "member '%s' declared as a function", name);
			} else if (r.t->kind == DL_VOID ||
				   ((r.t->kind == DL_STRUCT || r.t->kind == DL_UNION) &&
				    !r.t->complete)) {
				dl_error(ps, loc, "member '%s' has incomplete type '%s'", name,
					 dl_type_cdecl(ps->p, m.type, NULL));
			}
			for (size_t i = 0; name && i < cnt; i++)
				if (members[i].name && !strcmp(members[i].name, name))
					dl_error(ps, loc, "duplicate member '%s'", name);
			/* unnamed bit-fields are kept: they pad the layout */
			DL_PUSH(ps->p, members, cnt, cap, m);
			if (!dl_accept(ps, ','))
				break;
		}
		dl_expect(ps, ';', "';' after member declaration");
	}
	dl_advance(ps); /* '}' */
	dl_unnest(ps);
	t->members = members;
	t->member_cnt = cnt;
	t->complete = true;
	dl_type_layout(ps->p, t);
}

static void parse_enum_body(struct dl_parser *ps, struct dl_type *t)
{
	struct dl_enumerator *e = NULL;
	size_t cnt = 0, cap = 0;
	int64_t next = 0;

	dl_expect(ps, '{', "'{'");
	while (ps->tok.kind != '}') {
		if (!is_name_tok(ps->tok.kind))
			dl_error(ps, ps->tok.loc, "syntax error: expected an enumerator name before \"%s\"",
				 tok_desc(&ps->tok));
		struct dl_enumerator en = { .name = name_text(&ps->tok) };
		struct dl_loc loc = ps->tok.loc;

		dl_advance(ps);
		if (dl_accept(ps, '='))
			next = dl_eval_const(ps, dl_parse_assign_expr(ps));
		en.value = next++;
		if (dl_sym_get(&ps->p->enumconsts, en.name))
			dl_error(ps, loc, "enumerator '%s' is already defined", en.name);
		DL_PUSH(ps->p, e, cnt, cap, en);
		dl_sym_put(ps->p, &ps->p->enumconsts, en.name, &e[cnt - 1]);
		if (!dl_accept(ps, ','))
			break;
	}
	dl_expect(ps, '}', "'}' after enumerators");
	/* The symbol table points into e; re-point after the array settled. */
	for (size_t i = 0; i < cnt; i++)
		dl_sym_put(ps->p, &ps->p->enumconsts, e[i].name, &e[i]);
	t->enums = e;
	t->enum_cnt = cnt;
	t->size = 4;
	t->align = 4;
	t->is_signed = true;
	t->complete = true;
}

/* -- Top-level declarations ----------------------------------------------------------------------- */

static void declare_typedef(struct dl_parser *ps, const char *name, struct dl_qtype type,
			    struct dl_loc loc)
{
	struct dl_type *old = dl_lookup_typedef(ps->p, name);

	if (old) {
		/*
		 * C11 allows an identical redefinition. System headers under -C
		 * redeclare D's predefined names (glibc's <sys/types.h>:
		 * "typedef __pid_t pid_t;"): the same type, whatever the chain,
		 * keeps the predefined one, which remembers where it was seen
		 * for a conflict after it.
		 */
		/* (D's own type names are in the table too, as themselves: int, string) */
		struct dl_qtype was_t = old->kind == DL_TYPEDEF ? old->ref : (struct dl_qtype){ old, 0 };
		if ((old->kind == DL_TYPEDEF && dl_type_equal(old->ref, type) &&
		     old->ref.quals == type.quals) ||
		    (old->builtin && old->kind == DL_TYPEDEF && dl_type_same_repr(old->ref, type))) {
			if (old->builtin && !old->loc.file)
				old->loc = loc;
			return;
		}
		const char *was = dl_type_cdecl(ps->p, dl_type_resolve(was_t), NULL);
		const char *now = dl_type_cdecl(ps->p, dl_type_resolve(type), NULL);
		if (old->builtin && old->loc.file)
			dl_error(ps, loc, "typedef '%s' as %s conflicts with '%s' as %s (declared "
				 "at %s:%d, as D predefines it)", name, now, name, was,
				 old->loc.file, old->loc.line);
		if (old->builtin)
			dl_error(ps, loc, "typedef '%s' as %s conflicts with '%s', predefined by D "
				 "as %s", name, now, name, was);
		dl_error(ps, loc, "typedef '%s' redefined with a different type (first at %s:%d)",
			 name, old->loc.file, old->loc.line);
	}
	struct dl_type *td = dl_type_new(ps->p, DL_TYPEDEF, loc);
	td->name = name;
	td->ref = type;
	td->depth = dl_type_depth(type) + 1;
	dl_check_type_depth(ps, (struct dl_qtype){ td, 0 }, loc);
	struct dl_qtype r = dl_type_resolve(type);
	td->size = r.t->size;
	td->align = r.t->align;
	dl_sym_put(ps->p, &ps->p->typedefs, name, td);
}

/*
 * A type a D variable may have: an integer, a pointer, a string, a float or
 * a double, or (its bytes: refs) a complete struct or union or a sized array.
 */
static bool var_type_ok(struct dl_qtype t, bool refs)
{
	const struct dl_type *r = dl_type_resolve(t).t;

	switch (r->kind) {
	case DL_INT: case DL_ENUM: case DL_PTR: case DL_STRING:
		return true;
	case DL_FLOAT:
		return r->size == 4 || r->size == 8;
	case DL_STRUCT: case DL_UNION: case DL_ARRAY:
		return refs && r->size;
	default:
		return false;
	}
}

/* "int x;", "self string s;", "this int y;", "int a[int, string];" (compile_var.c keeps them). */
static void declare_variable(struct dl_parser *ps, enum storage st, const char *name,
			     struct dl_qtype t, struct dl_loc loc)
{
	enum dl_var_scope scope = st == ST_SELF ? DL_VAR_THREAD : st == ST_THIS ? DL_VAR_LOCAL
										 : DL_VAR_GLOBAL;
	const char *err = NULL;

	if (!var_type_ok(t, true))
		dl_error(ps, loc, "variables of type %s are not supported",
			 dl_type_cdecl(ps->p, t, NULL));
	for (size_t k = 0; ps->assoc && k < ps->assoc_key_cnt; k++) {
		struct dl_qtype kt = ps->assoc_keys[k];
		const struct dl_type *kr = dl_type_resolve(kt).t;
		enum dl_kind kk = kr->kind;
		if (kk != DL_INT && kk != DL_ENUM && kk != DL_PTR && kk != DL_STRING &&
		    !((kk == DL_STRUCT || kk == DL_UNION) && kr->size))
			dl_error(ps, loc, "a key of type %s is not supported",
				 dl_type_cdecl(ps->p, kt, NULL));
	}
	if (ps->assoc && ps->assoc_key_cnt > UDT_DV_MAX_KEYS)
		dl_error(ps, loc, "insufficient tuple registers to generate expression");
	if (!dl_var_declare(ps->p, scope, name, t, ps->assoc, ps->assoc_keys,
			    ps->assoc ? ps->assoc_key_cnt : 0, loc, &err))
		dl_error(ps, loc, "%s: %s", err, name);
}

/* "inline type name = expression;": the expression, compiled where the name is used. */
static void declare_inline(struct dl_parser *ps, const char *name, struct dl_qtype t,
			   struct dl_loc loc)
{
	struct dl_inline *in = dl_alloc(ps->p, sizeof(*in));

	if (!var_type_ok(t, false))
		dl_error(ps, loc, "inline %s: type %s is not supported", name,
			 dl_type_cdecl(ps->p, t, NULL));
	if (dl_sym_get(&ps->p->inlines, name))
		dl_error(ps, loc, "identifier redefined: %s\n\t current: inline definition\n"
			 "\tprevious: scalar inline", name);
	if (dl_lookup_typedef(ps->p, name))
		dl_error(ps, loc, "identifier redeclared: %s", name);
	dl_expect(ps, '=', "'=' after the name of an inline");
	*in = (struct dl_inline){ .name = name, .type = t, .loc = loc,
				  .expr = dl_parse_assign_expr(ps), .seq = ++ps->p->decl_seq };
	dl_sym_put(ps->p, &ps->p->inlines, name, in);
}

/* A C function's body, from '{' to its matching '}': nothing D uses. */
static void skip_body(struct dl_parser *ps)
{
	struct dl_loc at = ps->tok.loc;
	size_t depth = 0;

	do {
		if (ps->tok.kind == T_EOF)
			dl_error(ps, at, "syntax error: function body is not closed with '}'");
		if (ps->tok.kind == '{')
			depth++;
		else if (ps->tok.kind == '}')
			depth--;
		dl_advance(ps);
	} while (depth > 0);
}

/* C11's "_Static_assert(expr, "message");", as system headers may hold: skipped. */
static bool skip_static_assert(struct dl_parser *ps)
{
	if (ps->tok.kind != T_IDENT || strcmp(ps->tok.text, "_Static_assert"))
		return false;
	struct dl_loc at = ps->tok.loc;
	dl_advance(ps);
	dl_expect(ps, '(', "'(' after _Static_assert");
	for (size_t depth = 1; depth > 0; dl_advance(ps)) {
		if (ps->tok.kind == T_EOF)
			dl_error(ps, at, "syntax error: _Static_assert is not closed with ')'");
		depth += ps->tok.kind == '(';
		depth -= ps->tok.kind == ')';
	}
	dl_expect(ps, ';', "';' after _Static_assert");
	return true;
}

static void parse_declaration(struct dl_parser *ps)
{
	struct specs sp;

	parse_specifiers(ps, &sp, true);
	if (ps->tok.kind == ';') {
		dl_advance(ps);
		return; /* "struct foo { ... };" or "struct foo;" */
	}
	for (;;) {
		const char *name;
		struct dl_loc loc;
		ps->assoc = false;
		struct dl_qtype t = parse_declarator(ps, sp.type, &name, &loc, false);

		if (ps->assoc && sp.storage != ST_NONE && sp.storage != ST_SELF)
			dl_error(ps, loc, "%s cannot be an associative array", name);
		/*
		 * A C function's prototype or definition (system headers under
		 * -C): D has no functions of its own, so nothing to keep.
		 */
		if (sp.storage != ST_TYPEDEF && dl_type_resolve(t).t->kind == DL_FUNC) {
			if (ps->tok.kind == '{') {
				skip_body(ps);
				return;
			}
			if (!dl_accept(ps, ','))
				break;
			continue;
		}
		if (sp.c_inline)
			dl_error(ps, loc, "'inline' is only for functions here: '%s' is not one",
				 name);
		switch (sp.storage) {
		case ST_TYPEDEF:
			declare_typedef(ps, name, t, loc);
			break;
		case ST_EXTERN:
			break; /* extern declarations only name application symbols */
		case ST_INLINE:
			declare_inline(ps, name, t, loc);
			break;
		case ST_STATIC:
			dl_error(ps, loc, "storage class 'static' is not allowed here");
		default:
			declare_variable(ps, sp.storage, name, t, loc);
			break;
		}
		if (!dl_accept(ps, ','))
			break;
	}
	dl_expect(ps, ';', "';' after declaration");
}

/* -- Providers ------------------------------------------------------------------------------------ */

char *dl_probe_dname(const char *name)
{
	char *d = udt__xstrdup(name);
	char *w = d;

	for (const char *r = name; *r;) {
		if (r[0] == '_' && r[1] == '_') {
			*w++ = '-';
			r += 2;
		} else {
			*w++ = *r++;
		}
	}
	*w = '\0';
	return d;
}

static void parse_arglist(struct dl_parser *ps, struct dl_param **ret, size_t *ret_cnt)
{
	struct dop f = { 0 };

	dl_expect(ps, '(', "'(' after probe name");
	parse_params(ps, &f);
	if (f.varargs)
		dl_error(ps, f.loc, "probes cannot take a variable argument list");
	*ret = f.params;
	*ret_cnt = f.param_cnt;
}

static void check_native_args(struct dl_parser *ps, struct dl_probe *pr)
{
	if (pr->narg_cnt > DL_MAX_ARGS)
		dl_error(ps, pr->loc, "probe '%s' has %zu arguments: at most %d are supported",
			 pr->name, pr->narg_cnt, DL_MAX_ARGS);
	for (size_t i = 0; i < pr->narg_cnt; i++) {
		struct dl_param *a = &pr->nargs[i];
		const char *ty = dl_type_cdecl(ps->p, a->type, NULL);
		struct dl_qtype r = dl_type_resolve(a->type);

		switch (dl_type_argclass(a->type)) {
		case DL_ARG_INT:
			if (r.t->kind == DL_INT && r.t->size > 8)
				dl_error(ps, a->loc, "argument %zu of probe '%s' has type '%s' wider "
					 "than 8 bytes", i + 1, pr->name, ty);
			break;
		case DL_ARG_PTR:
			break;
		case DL_ARG_FLOAT:
			dl_error(ps, a->loc, "argument %zu of probe '%s' has floating-point type "
				 "'%s': probe arguments must be integers or pointers (pass a "
				 "pointer, or the value scaled to an integer)", i + 1, pr->name, ty);
		case DL_ARG_AGGR:
			dl_error(ps, a->loc, "argument %zu of probe '%s' passes '%s' by value: "
				 "pass a pointer to it", i + 1, pr->name, ty);
		case DL_ARG_VOID:
			dl_error(ps, a->loc, "argument %zu of probe '%s' has type void", i + 1,
				 pr->name);
		}
		if (r.t->kind != DL_STRING && r.t->kind != DL_PTR && r.t->kind != DL_INT &&
		    r.t->kind != DL_ENUM && r.t->kind != DL_ARRAY && r.t->kind != DL_FUNC)
			dl_error(ps, a->loc, "argument %zu of probe '%s' has unsupported type '%s'",
				 i + 1, pr->name, ty);
	}
}

static void map_translated_args(struct dl_parser *ps, struct dl_probe *pr)
{
	if (pr->xarg_cnt > DL_MAX_XARGS)
		dl_error(ps, pr->loc, "probe '%s' has %zu translated arguments: at most %d are "
			 "supported", pr->name, pr->xarg_cnt, DL_MAX_XARGS);
	pr->mapping = dl_alloc(ps->p, pr->xarg_cnt + 1);
	for (size_t i = 0; i < pr->xarg_cnt; i++) {
		struct dl_param *x = &pr->xargs[i];
		size_t k;

		if (!x->name) {
			/* no name: the native argument at the same position */
			if (i >= pr->narg_cnt)
				dl_error(ps, x->loc, "translated argument %zu of probe '%s' has no "
					 "name and no native argument at its position", i + 1,
					 pr->name);
			pr->mapping[i] = (uint8_t)i;
			continue;
		}
		for (k = 0; k < pr->narg_cnt; k++)
			if (pr->nargs[k].name && !strcmp(pr->nargs[k].name, x->name))
				break;
		if (k == pr->narg_cnt)
			dl_error(ps, x->loc, "translated argument '%s' of probe '%s' does not "
				 "match any native argument", x->name, pr->name);
		pr->mapping[i] = (uint8_t)k;
	}
}

/* A provider being parsed: its probes' growth and the names seen (for duplicates). */
struct provider_state {
	size_t probe_cap;
	struct dl_symtab names; /* dname -> struct dl_probe */
};

static void parse_probe(struct dl_parser *ps, struct dl_provider *pv, struct provider_state *st)
{
	struct dl_probe *pr = dl_alloc(ps->p, sizeof(*pr));

	pr->loc = ps->tok.loc;
	pr->provider = pv;
	dl_advance(ps); /* "probe" */
	if (!is_word_tok(ps->tok.kind))
		dl_error(ps, ps->tok.loc, "syntax error: expected a probe name before \"%s\"",
			 tok_desc(&ps->tok));
	pr->name = name_text(&ps->tok);
	pr->loc = ps->tok.loc;
	dl_advance(ps);
	{
		char *d = dl_probe_dname(pr->name);
		pr->dname = dl_strdup(ps->p, d);
		free(d);
	}
	struct dl_probe *first = dl_sym_get(&st->names, pr->dname);
	if (first)
		dl_error(ps, pr->loc, "probe '%s' is declared twice in provider '%s' "
			 "(first at line %d)", pr->dname, pv->name, first->loc.line);
	dl_sym_put(ps->p, &st->names, pr->dname, pr);
	parse_arglist(ps, &pr->nargs, &pr->narg_cnt);
	check_native_args(ps, pr);
	if (dl_accept(ps, ':')) {
		pr->translated = true;
		parse_arglist(ps, &pr->xargs, &pr->xarg_cnt);
		for (size_t i = 0; i < pr->xarg_cnt; i++) {
			struct dl_qtype r = dl_type_resolve(pr->xargs[i].type);
			if (r.t->kind == DL_VOID)
				dl_error(ps, pr->xargs[i].loc, "translated argument %zu of probe '%s' "
					 "has type void", i + 1, pr->name);
		}
	} else {
		pr->xargs = pr->nargs;
		pr->xarg_cnt = pr->narg_cnt;
	}
	map_translated_args(ps, pr);
	dl_expect(ps, ';', "';' after probe declaration");
	DL_PUSH(ps->p, pv->probes, pv->probe_cnt, st->probe_cap, pr);
}

static const struct dl_attr default_attr = {
	/* DTrace gives providers without attribute pragmas Unstable/Unstable/Common. */
	DL_STAB_UNSTABLE, DL_STAB_UNSTABLE, DL_CLASS_COMMON,
};

static void parse_provider(struct dl_parser *ps)
{
	struct dl_provider *pv = dl_alloc(ps->p, sizeof(*pv));
	struct provider_state st = { 0 };

	pv->loc = ps->tok.loc;
	dl_advance(ps); /* "provider" */
	if (!is_word_tok(ps->tok.kind))
		dl_error(ps, ps->tok.loc, "syntax error: expected a provider name before \"%s\"",
			 tok_desc(&ps->tok));
	pv->name = name_text(&ps->tok);
	if (isdigit((unsigned char)pv->name[strlen(pv->name) - 1]))
		dl_error(ps, ps->tok.loc, "provider name '%s' must not end in a digit "
				 "(the process ID is appended to it)", pv->name);
	pv->loc = ps->tok.loc;
	struct dl_provider *old = dl_sym_get(&ps->p->provider_names, pv->name);
	if (old)
		dl_error(ps, pv->loc, "provider '%s' is already defined at %s:%d", pv->name,
			 old->loc.file, old->loc.line);
	dl_advance(ps);
	for (int i = 0; i < DL_ATTR_CNT; i++)
		pv->attr[i] = default_attr;
	dl_expect(ps, '{', "'{' after provider name");
	for (;;) {
		if (ps->tok.kind == '}')
			break;
		if (ps->tok.kind == K_PROBE) {
			parse_probe(ps, pv, &st);
			continue;
		}
		if (ps->tok.kind == T_EOF)
			dl_error(ps, ps->tok.loc, "syntax error: provider '%s' is not closed with '}'",
				 pv->name);
		dl_error(ps, ps->tok.loc, "syntax error: expected 'probe' or '}' in provider '%s' "
			 "before \"%s\"", pv->name, tok_desc(&ps->tok));
	}
	dl_advance(ps); /* '}' */
	dl_accept(ps, ';');
	dl_sym_put(ps->p, &ps->p->provider_names, pv->name, pv);
	DL_PUSH(ps->p, ps->p->providers, ps->p->provider_cnt, ps->p->provider_cap, pv);
}

/* -- Translators ----------------------------------------------------------------------------------- */

static void parse_translator(struct dl_parser *ps)
{
	struct dl_translator *x = dl_alloc(ps->p, sizeof(*x));
	size_t cap = 0;
	struct specs sp;
	struct dl_loc loc;

	x->loc = ps->tok.loc;
	x->binding = ps->pending_binding;
	ps->pending_binding = NULL;
	dl_advance(ps); /* "translator" */
	x->out = dl_parse_type_name(ps);
	dl_expect(ps, '<', "'<' after the translator's output type");
	parse_specifiers(ps, &sp, false);
	x->in = parse_declarator(ps, sp.type, &x->in_name, &loc, false);
	dl_expect(ps, '>', "'>' after the translator's input");
	dl_expect(ps, '{', "'{' to start the translator's members");
	while (ps->tok.kind != '}') {
		struct dl_xlator_member m = { 0 };

		if (!is_name_tok(ps->tok.kind) && !is_word_tok(ps->tok.kind))
			dl_error(ps, ps->tok.loc, "syntax error: expected a member name before \"%s\"",
				 tok_desc(&ps->tok));
		m.name = name_text(&ps->tok);
		m.loc = ps->tok.loc;
		dl_advance(ps);
		dl_expect(ps, '=', "'=' after the translator member name");
		m.expr = dl_parse_expr(ps);
		dl_expect(ps, ';', "';' after the translator member");
		for (size_t i = 0; i < x->member_cnt; i++)
			if (!strcmp(x->members[i].name, m.name))
				dl_error(ps, m.loc, "translator member '%s' is defined twice", m.name);
		DL_PUSH(ps->p, x->members, x->member_cnt, cap, m);
	}
	dl_advance(ps);
	dl_expect(ps, ';', "';' after translator");
	x->seq = ++ps->p->decl_seq;
	DL_PUSH(ps->p, ps->p->xlators, ps->p->xlator_cnt, ps->p->xlator_cap, x);
}

/* -- Pragmas ---------------------------------------------------------------------------------------- */

/* Split pragma text into blank-separated words (quoted strings kept whole). */
static size_t split_words(struct dl_program *p, const char *s, const char **words, size_t max)
{
	size_t n = 0;

	while (*s) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			break;
		const char *st = s;
		if (*s == '"') {
			s++;
			while (*s && *s != '"')
				s++;
			if (*s)
				s++;
		} else {
			while (*s && *s != ' ' && *s != '\t')
				s++;
		}
		if (n < max)
			words[n] = dl_strndup(p, st, (size_t)(s - st));
		n++;
	}
	return n;
}

/*
 * "Evolving/Evolving/ISA" into *ret. Returns NULL, or a message naming the
 * part that is wrong.
 */
static const char *parse_attr_word(struct dl_program *p, const char *w, struct dl_attr *ret)
{
	const char *parts[3];
	int vals[3] = { -1, -1, -1 };
	const char *s = w;

	for (int i = 0; i < 3; i++) {
		const char *slash = strchr(s, '/');
		size_t len = i < 2 ? (slash ? (size_t)(slash - s) : strlen(s)) : strlen(s);

		if (i < 2 && !slash)
			return dl_printf(p, "'%s' is not name-stability/data-stability/"
					 "dependency-class", w);
		parts[i] = dl_strndup(p, s, len);
		s += len + (i < 2);
	}
	for (int i = 0; i < 2; i++)
		for (int v = 0; v <= DL_STAB_STANDARD; v++)
			if (!strcasecmp(parts[i], dl_stability_name((unsigned)v)))
				vals[i] = v;
	for (int v = 0; v <= DL_CLASS_COMMON; v++)
		if (!strcasecmp(parts[2], dl_class_name((unsigned)v)))
			vals[2] = v;
	for (int i = 0; i < 2; i++)
		if (vals[i] < 0)
			return dl_printf(p, "'%s' is not a stability level (Internal, Private, "
					 "Obsolete, External, Unstable, Evolving, Stable, Standard)",
					 parts[i]);
	if (vals[2] < 0)
		return dl_printf(p, "'%s' is not a dependency class (Unknown, CPU, Platform, "
				 "Group, ISA, Common)", parts[2]);
	*ret = (struct dl_attr){ (uint8_t)vals[0], (uint8_t)vals[1], (uint8_t)vals[2] };
	return NULL;
}

static void do_pragma(struct dl_parser *ps)
{
	const char *w[8];
	struct dl_loc loc = ps->tok.loc;
	size_t n = split_words(ps->p, ps->tok.text, w, 8);

	dl_advance(ps);
	if (n == 0 || strcmp(w[0], "D"))
		return; /* not a D pragma ("#pragma ident", "#pragma once"): ignored as DTrace does */
	if (n < 2)
		dl_error(ps, loc, "malformed #pragma D: a directive name is required");
	const char *d = w[1];

	if (!strcmp(d, "attributes")) {
		struct dl_attr_pragma ap = { .loc = loc };
		static const char *const which[] = { "provider", "module", "function", "name",
						     "args" };

		if (n < 4)
			dl_error(ps, loc, "malformed #pragma D attributes: expected "
				 "name-stability/data-stability/dependency-class and a target, as "
				 "in \"Evolving/Evolving/ISA provider NAME provider\"");
		const char *why = parse_attr_word(ps->p, w[2], &ap.attr);
		if (why)
			dl_error(ps, loc, "malformed #pragma D attributes: %s", why);
		if (strcmp(w[3], "provider"))
			return; /* attributes of an identifier: accepted, not used by udtrace */
		if (n != 6)
			dl_error(ps, loc, "malformed #pragma D attributes: expected \"provider NAME "
				 "provider|module|function|name|args\"");
		ap.provider = w[4];
		ap.which = -1;
		for (int i = 0; i < DL_ATTR_CNT; i++)
			if (!strcmp(w[5], which[i]))
				ap.which = i;
		if (ap.which < 0)
			dl_error(ps, loc, "malformed #pragma D attributes: '%s' is not one of "
				 "provider, module, function, name, args", w[5]);
		DL_PUSH(ps->p, ps->p->attr_pragmas, ps->p->attr_pragma_cnt,
			ps->p->attr_pragma_cap, ap);
	} else if (!strcmp(d, "depends_on")) {
		if (n != 4 || (strcmp(w[2], "library") && strcmp(w[2], "provider") &&
			       strcmp(w[2], "module")))
			dl_error(ps, loc, "malformed #pragma D depends_on: expected \"library|"
				 "provider|module NAME\"");
		struct dl_depend dep = { w[2], w[3], loc };
		DL_PUSH(ps->p, ps->p->depends, ps->p->depend_cnt, ps->p->depend_cap, dep);
	} else if (!strcmp(d, "binding")) {
		if (n != 4 || w[2][0] != '"')
			dl_error(ps, loc, "malformed #pragma D binding: expected \"\\\"VERSION\\\" "
				 "IDENTIFIER\"");
		ps->pending_binding = dl_strndup(ps->p, w[2] + 1, strlen(w[2]) - 2);
	} else if (!strcmp(d, "option")) {
		if (n != 3)
			dl_error(ps, loc, "malformed #pragma D option: expected \"NAME[=VALUE]\"");
		struct dl_option o = { .loc = loc };
		const char *eq = strchr(w[2], '=');
		o.name = eq ? dl_strndup(ps->p, w[2], (size_t)(eq - w[2])) : w[2];
		o.value = eq ? dl_strdup(ps->p, eq + 1) : NULL;
		DL_PUSH(ps->p, ps->p->options, ps->p->option_cnt, ps->p->option_cap, o);
	} else if (!strcmp(d, "ident")) {
		/* version identification: no effect */
	} else if (!strcmp(d, "error")) {
		dl_error(ps, loc, "#pragma error: %s", n > 2 ? w[2] : "");
	} else {
		dl_error(ps, loc, "unknown control directive: #pragma D %s", d);
	}
}

static void apply_attr_pragmas(struct dl_parser *ps)
{
	struct dl_program *p = ps->p;

	for (size_t i = 0; i < p->attr_pragma_cnt; i++) {
		struct dl_attr_pragma *ap = &p->attr_pragmas[i];
		struct dl_provider *pv = dl_sym_get(&p->provider_names, ap->provider);

		if (!pv)
			dl_error(ps, ap->loc, "#pragma D attributes names provider '%s', which is "
				 "not defined", ap->provider);
		pv->attr[ap->which] = ap->attr;
	}
	p->attr_pragma_cnt = 0;
}

/* -- Clauses ---------------------------------------------------------------------------------------- */

static struct dl_stmt *parse_stmt(struct dl_parser *ps);

static struct dl_stmt **parse_block(struct dl_parser *ps, size_t *ret_cnt)
{
	struct dl_stmt **v = NULL;
	size_t cnt = 0, cap = 0;

	dl_expect(ps, '{', "'{'");
	while (ps->tok.kind != '}') {
		if (ps->tok.kind == T_EOF)
			dl_error(ps, ps->tok.loc, "syntax error: unterminated clause, expected '}'");
		DL_PUSH(ps->p, v, cnt, cap, parse_stmt(ps));
	}
	dl_advance(ps);
	*ret_cnt = cnt;
	return v;
}

static struct dl_stmt *parse_stmt_in(struct dl_parser *ps, struct dl_stmt *s)
{
	switch (ps->tok.kind) {
	case ';':
		s->kind = DL_S_EMPTY;
		dl_advance(ps);
		return s;
	case '{':
		s->kind = DL_S_BLOCK;
		s->body = parse_block(ps, &s->body_cnt);
		return s;
	case K_IF:
		s->kind = DL_S_IF;
		dl_advance(ps);
		dl_expect(ps, '(', "'(' after if");
		s->expr = dl_parse_expr(ps);
		dl_expect(ps, ')', "')'");
		s->body = dl_alloc(ps->p, 2 * sizeof(*s->body));
		s->body_cnt = 2;
		s->body[0] = parse_stmt(ps);
		if (dl_accept(ps, K_ELSE))
			s->body[1] = parse_stmt(ps);
		return s;
	default:
		s->kind = DL_S_EXPR;
		s->expr = dl_parse_expr(ps);
		/* D lets the last statement of a clause go without ';' */
		if (ps->tok.kind != '}')
			dl_expect(ps, ';', "';' after statement");
		return s;
	}
}

static struct dl_stmt *parse_stmt(struct dl_parser *ps)
{
	struct dl_stmt *s = dl_alloc(ps->p, sizeof(*s));

	s->loc = ps->tok.loc;
	dl_nest(ps, s->loc);
	parse_stmt_in(ps, s);
	dl_unnest(ps);
	return s;
}

static void parse_clause(struct dl_parser *ps)
{
	struct dl_clause *c = dl_alloc(ps->p, sizeof(*c));
	size_t cap = 0;

	c->loc = ps->tok.loc;
	for (;;) {
		struct dl_loc loc;
		const char *pd;

		ps->have_ahead = false;
		dl_lex_rewind(&ps->lx, &ps->tok);
		pd = dl_lex_pdesc(&ps->lx, &loc);
		if (!pd)
			dl_error(ps, ps->tok.loc, "syntax error near \"%s\"", tok_desc(&ps->tok));
		char *bad;
		const char *xpd = dl_expand_pdesc(ps->p, pd, &bad);
		if (!xpd)
			dl_error(ps, loc, "macro argument $%s is not defined", bad);
		DL_PUSH(ps->p, c->pdescs, c->pdesc_cnt, cap, xpd);
		struct dl_token first = ps->tok;
		dl_advance(ps);
		/* "foo_t x;" with foo_t undeclared reads as a probe description */
		if (first.kind == T_IDENT && !strcmp(first.text, pd) &&
		    (is_name_tok(ps->tok.kind) || ps->tok.kind == '*'))
			dl_error(ps, first.loc, "unknown type name '%s'%s", pd,
				 dl_lex_cpp_hint(&ps->lx, pd));
		if (!dl_accept(ps, ','))
			break;
	}
	if (ps->tok.kind == '/') {
		dl_advance(ps);
		ps->in_predicate = true;
		c->predicate = dl_parse_expr(ps);
		ps->in_predicate = false;
		dl_expect(ps, '/', "'/' to close the predicate");
	}
	if (ps->tok.kind == '{')
		c->stmts = parse_block(ps, &c->stmt_cnt);
	DL_PUSH(ps->p, ps->p->clauses, ps->p->clause_cnt, ps->p->clause_cap, c);
}

/* -- Entry points ---------------------------------------------------------------------------------- */

static void parse_program(struct dl_parser *ps)
{
	dl_advance(ps);
	ps->p->unit_items = 0;
	for (;;) {
		/* (pragmas and empty declarations alone are an empty program, as in DTrace) */
		switch (ps->tok.kind) {
		case T_EOF:
			return;
		case T_PRAGMA:
			do_pragma(ps);
			continue;
		case ';':
			dl_advance(ps);
			continue;
		case K_PROVIDER:
			parse_provider(ps);
			break;
		case K_TRANSLATOR:
			parse_translator(ps);
			break;
		case K_TYPEDEF: case K_EXTERN: case K_STATIC: case K_INLINE:
			parse_declaration(ps);
			break;
		case K_SELF: case K_THIS:
			parse_declaration(ps);
			break;
		default:
			if (skip_static_assert(ps))
				break;
			if (dl_tok_starts_type(ps, &ps->tok))
				parse_declaration(ps);
			else
				parse_clause(ps);
			break;
		}
		ps->p->unit_items++;
	}
}

int dl_parse(struct dl_program *p, const char *name, const char *text, size_t len,
	     bool preprocessed)
{
	struct dl_parser ps = { .p = p };
	jmp_buf jb;

	free(p->errmsg);
	p->errmsg = NULL;
	p->jb = &jb;
	/* locations outlive the caller's name: the program keeps its own copy */
	dl_lex_init(&ps.lx, p, dl_strdup(p, name), text, len, preprocessed);
	if (setjmp(jb)) {
		p->jb = NULL;
		p->attr_pragma_cnt = 0;
		return -1;
	}
	parse_program(&ps);
	apply_attr_pragmas(&ps);
	p->jb = NULL;
	return 0;
}

int dl_parse_type_str(struct dl_program *p, const char *text, struct dl_qtype *ret)
{
	struct dl_parser ps = { .p = p };
	jmp_buf jb, *saved = p->jb;

	p->jb = &jb;
	dl_lex_init(&ps.lx, p, "type", text, strlen(text), true);
	if (setjmp(jb)) {
		p->jb = saved;
		return -1;
	}
	dl_advance(&ps);
	if (!dl_tok_starts_type(&ps, &ps.tok))
		dl_error(&ps, ps.tok.loc, "not a type");
	*ret = dl_parse_type_name(&ps);
	if (ps.tok.kind != T_EOF)
		dl_error(&ps, ps.tok.loc, "not a type");
	p->jb = saved;
	return 0;
}

struct dl_program *dl_program_new(enum dl_model model)
{
	struct dl_program *p = udt__xcalloc(1, sizeof(*p));

	p->model = model;
	dl_types_init(p);
	return p;
}

void dl_program_free(struct dl_program *p)
{
	if (!p)
		return;
	free(p->errmsg);
	free(p->vars);
	dl_arena_free(&p->arena);
	free(p);
}

size_t dl_program_unit_items(const struct dl_program *p)
{
	return p->unit_items;
}

const char *dl_program_errmsg(const struct dl_program *p)
{
	return p->errmsg;
}

enum dl_model dl_program_model(const struct dl_program *p)
{
	return p->model;
}

struct dl_provider *const *dl_program_providers(const struct dl_program *p, size_t *ret_cnt)
{
	*ret_cnt = p->provider_cnt;
	return p->providers;
}

struct dl_translator *const *dl_program_translators(const struct dl_program *p, size_t *ret_cnt)
{
	*ret_cnt = p->xlator_cnt;
	return p->xlators;
}

struct dl_clause *const *dl_program_clauses(const struct dl_program *p, size_t *ret_cnt)
{
	*ret_cnt = p->clause_cnt;
	return p->clauses;
}

const struct dl_depend *dl_program_depends(const struct dl_program *p, size_t *ret_cnt)
{
	*ret_cnt = p->depend_cnt;
	return p->depends;
}

const struct dl_option *dl_program_options(const struct dl_program *p, size_t *ret_cnt)
{
	*ret_cnt = p->option_cnt;
	return p->options;
}
