/* SPDX-License-Identifier: MIT */
/*
 * D expressions: a precedence-climbing parser producing struct dl_node trees,
 * and the integer constant evaluator used by declarations (array sizes,
 * enumerators, bit-field widths).
 *
 * The grammar is C's with D's additions: the ^^ (logical xor) operator,
 * "stringof", "xlate<type>(expr)", "offsetof(type, member)", tuple
 * subscripts (a[x, y]), $macro variables and @aggregations. Type checking is
 * not done here; the consumer's compiler does it.
 *
 * Casts and sizeof need to tell a type name from an expression after '(':
 * a token that starts a type (a type keyword or a typedef name) decides, as
 * in C. In a predicate ("/expr/"), a '/' followed by '{', end of input or
 * another clause ends the expression instead of dividing.
 */
#include "dlang/internal.h"

#include <string.h>

static struct dl_node *node(struct dl_parser *ps, enum dl_node_kind kind, struct dl_loc loc)
{
	struct dl_node *n = dl_alloc(ps->p, sizeof(*n));

	n->kind = kind;
	n->loc = loc;
	return n;
}

static struct dl_node *parse_cast(struct dl_parser *ps);
static struct dl_node *parse_unary(struct dl_parser *ps);
static struct dl_node *parse_binary(struct dl_parser *ps, int min_prec);

/* Binary operator precedence (higher binds tighter); 0: not a binary operator. */
static int binary_prec(int kind)
{
	switch (kind) {
	case T_LOR: return 4;
	case T_LXOR: return 5;
	case T_LAND: return 6;
	case '|': return 7;
	case '^': return 8;
	case '&': return 9;
	case T_EQ: case T_NE: return 10;
	case '<': case '>': case T_LE: case T_GE: return 11;
	case T_SHL: case T_SHR: return 12;
	case '+': case '-': return 13;
	case '*': case '/': case '%': return 14;
	default: return 0;
	}
}

static bool is_assign_op(int kind)
{
	switch (kind) {
	case '=': case T_MUL_EQ: case T_DIV_EQ: case T_MOD_EQ: case T_ADD_EQ: case T_SUB_EQ:
	case T_SHL_EQ: case T_SHR_EQ: case T_AND_EQ: case T_XOR_EQ: case T_OR_EQ:
		return true;
	default:
		return false;
	}
}

/* In a predicate, does the '/' at the current token close it? */
static bool closes_predicate(struct dl_parser *ps)
{
	if (!ps->in_predicate || ps->tok.kind != '/')
		return false;
	int next = dl_peek(ps)->kind;

	return next == '{' || next == T_EOF || next == ';' || next == '}';
}

/* Is the token a name usable as a member name after '.' or '->'? */
static bool member_name_tok(int kind)
{
	return kind == T_IDENT || (kind >= T_KW_FIRST && kind < T_KW_LAST);
}

static struct dl_node *parse_primary(struct dl_parser *ps)
{
	struct dl_token t = ps->tok;
	struct dl_node *n;

	switch (t.kind) {
	case T_INT:
	case T_CHAR:
		n = node(ps, DL_N_INT, t.loc);
		n->ival = t.ival;
		n->op = t.int_suffix;
		n->flag = t.kind == T_CHAR;
		dl_advance(ps);
		return n;
	case T_FLOAT:
		n = node(ps, DL_N_FLOAT, t.loc);
		n->fval = t.fval;
		dl_advance(ps);
		return n;
	case T_STRING: {
		/* adjacent string constants concatenate */
		size_t len = t.len;
		char *s = dl_strndup(ps->p, t.text, t.len);

		dl_advance(ps);
		while (ps->tok.kind == T_STRING) {
			char *j = dl_alloc(ps->p, len + ps->tok.len + 1);
			memcpy(j, s, len);
			memcpy(j + len, ps->tok.text, ps->tok.len);
			len += ps->tok.len;
			s = j;
			dl_advance(ps);
		}
		n = node(ps, DL_N_STRING, t.loc);
		n->sval = s;
		n->slen = len;
		return n;
	}
	case T_IDENT:
	case K_SELF:
	case K_THIS:
		n = node(ps, DL_N_IDENT, t.loc);
		n->name = t.kind == T_IDENT ? t.text : t.kind == K_SELF ? "self" : "this";
		dl_advance(ps);
		return n;
	case T_MACRO:
	case T_MACRO_STR:
		n = node(ps, DL_N_MACRO, t.loc);
		n->name = t.text;
		n->flag = t.kind == T_MACRO_STR;
		dl_advance(ps);
		return n;
	case T_AGG:
		n = node(ps, DL_N_AGG, t.loc);
		n->name = t.text;
		dl_advance(ps);
		return n;
	case '(':
		dl_advance(ps);
		bool saved = ps->in_predicate;
		ps->in_predicate = false;
		n = dl_parse_expr(ps);
		ps->in_predicate = saved;
		dl_expect(ps, ')', "')'");
		return n;
	case K_OFFSETOF:
		dl_advance(ps);
		n = node(ps, DL_N_OFFSETOF, t.loc);
		dl_expect(ps, '(', "'(' after offsetof");
		n->type = dl_parse_type_name(ps);
		dl_expect(ps, ',', "',' in offsetof");
		if (!member_name_tok(ps->tok.kind))
			dl_error(ps, ps->tok.loc, "expected member name in offsetof");
		n->name = ps->tok.text ? ps->tok.text : dl_tok_name(ps->tok.kind);
		dl_advance(ps);
		dl_expect(ps, ')', "')'");
		return n;
	case K_XLATE:
		dl_advance(ps);
		n = node(ps, DL_N_XLATE, t.loc);
		dl_expect(ps, '<', "'<' after xlate");
		n->type = dl_parse_type_name(ps);
		dl_expect(ps, '>', "'>' after xlate type");
		dl_expect(ps, '(', "'(' after xlate<type>");
		n->a = dl_parse_expr(ps);
		dl_expect(ps, ')', "')'");
		return n;
	default:
		if (t.kind == T_EOF)
			dl_error(ps, t.loc, "syntax error: unexpected end of input in expression");
		dl_error(ps, t.loc, "syntax error near \"%s\"", t.text ? t.text : dl_tok_name(t.kind));
	}
}

static struct dl_node **parse_args(struct dl_parser *ps, int close, size_t *ret_cnt)
{
	struct dl_node **args = NULL;
	size_t cnt = 0, cap = 0;
	bool saved = ps->in_predicate;

	ps->in_predicate = false;
	if (ps->tok.kind != close) {
		do {
			DL_PUSH(ps->p, args, cnt, cap, dl_parse_assign_expr(ps));
		} while (dl_accept(ps, ','));
	}
	ps->in_predicate = saved;
	dl_expect(ps, close, close == ')' ? "')'" : "']'");
	*ret_cnt = cnt;
	return args;
}

static struct dl_node *parse_postfix(struct dl_parser *ps)
{
	struct dl_node *n = parse_primary(ps);
	unsigned depth = ps->depth;

	for (;;) {
		struct dl_token t = ps->tok;
		struct dl_node *m;

		switch (t.kind) {
		case '[':
			dl_advance(ps);
			m = node(ps, DL_N_INDEX, t.loc);
			m->a = n;
			m->args = parse_args(ps, ']', &m->arg_cnt);
			if (!m->arg_cnt) /* as DTrace's grammar: an index or a key is required */
				dl_error(ps, t.loc, "syntax error: '[ ]' needs an index or a key");
			n = m;
			break;
		case '(':
			dl_advance(ps);
			m = node(ps, DL_N_CALL, t.loc);
			m->a = n;
			m->args = parse_args(ps, ')', &m->arg_cnt);
			n = m;
			break;
		case '.':
		case T_ARROW:
			dl_advance(ps);
			if (!member_name_tok(ps->tok.kind))
				dl_error(ps, ps->tok.loc, "expected member name after '%s'",
					 t.kind == '.' ? "." : "->");
			m = node(ps, t.kind == '.' ? DL_N_MEMBER : DL_N_PTRMEMBER, t.loc);
			m->a = n;
			m->name = ps->tok.text ? ps->tok.text : dl_tok_name(ps->tok.kind);
			dl_advance(ps);
			n = m;
			break;
		case T_INC:
		case T_DEC:
			dl_advance(ps);
			m = node(ps, DL_N_POSTFIX, t.loc);
			m->op = t.kind;
			m->a = n;
			n = m;
			break;
		default:
			ps->depth = depth;
			return n;
		}
		dl_nest(ps, t.loc); /* what follows is a level deeper in the tree */
	}
}

static struct dl_node *parse_unary_in(struct dl_parser *ps)
{
	struct dl_token t = ps->tok;
	struct dl_node *n;

	switch (t.kind) {
	case '-': case '+': case '!': case '~': case '*': case '&': case T_INC: case T_DEC:
		dl_advance(ps);
		n = node(ps, DL_N_UNARY, t.loc);
		n->op = t.kind;
		n->a = parse_cast(ps);
		return n;
	case K_SIZEOF:
		dl_advance(ps);
		n = node(ps, DL_N_SIZEOF, t.loc);
		if (ps->tok.kind == '(' && dl_tok_starts_type(ps, dl_peek(ps))) {
			dl_advance(ps);
			n->type = dl_parse_type_name(ps);
			dl_expect(ps, ')', "')'");
			return n;
		}
		n->a = parse_unary(ps);
		return n;
	case K_STRINGOF:
		dl_advance(ps);
		n = node(ps, DL_N_STRINGOF, t.loc);
		n->a = parse_unary(ps);
		return n;
	default:
		return parse_postfix(ps);
	}
}

/* Every operand passes here: parentheses, unary operators, sizeof nest through it. */
static struct dl_node *parse_unary(struct dl_parser *ps)
{
	dl_nest(ps, ps->tok.loc);
	struct dl_node *n = parse_unary_in(ps);
	dl_unnest(ps);
	return n;
}

static struct dl_node *parse_cast(struct dl_parser *ps)
{
	if (ps->tok.kind == '(') {
		bool type_next = dl_tok_starts_type(ps, dl_peek(ps));
		if (type_next) {
			struct dl_loc loc = ps->tok.loc;
			struct dl_node *n;

			dl_advance(ps);
			n = node(ps, DL_N_CAST, loc);
			n->type = dl_parse_type_name(ps);
			dl_expect(ps, ')', "')' after cast type");
			dl_nest(ps, loc);
			n->a = parse_cast(ps);
			dl_unnest(ps);
			return n;
		}
	}
	return parse_unary(ps);
}

static struct dl_node *parse_binary(struct dl_parser *ps, int min_prec)
{
	struct dl_node *lhs = parse_cast(ps);
	unsigned depth = ps->depth;

	for (;;) {
		int op = ps->tok.kind;
		int prec = binary_prec(op);

		if (!prec || prec < min_prec || closes_predicate(ps)) {
			ps->depth = depth;
			return lhs;
		}
		struct dl_loc loc = ps->tok.loc;
		dl_nest(ps, loc); /* a chain's tree is as deep as it is long */
		dl_advance(ps);
		struct dl_node *rhs = parse_binary(ps, prec + 1);
		struct dl_node *n = node(ps, DL_N_BINARY, loc);
		n->op = op;
		n->a = lhs;
		n->b = rhs;
		lhs = n;
	}
}

static bool parse_time_const(struct dl_parser *ps, const struct dl_node *n);

static struct dl_node *parse_conditional(struct dl_parser *ps)
{
	struct dl_node *c = parse_binary(ps, 4);

	if (ps->tok.kind != '?')
		return c;
	struct dl_node *n = node(ps, DL_N_TERNARY, ps->tok.loc);
	dl_advance(ps);
	n->a = c;
	bool saved = ps->in_predicate;
	ps->in_predicate = false;
	dl_nest(ps, n->loc); /* (the middle operand is a level deeper too) */
	n->b = dl_parse_expr(ps);
	dl_unnest(ps);
	ps->in_predicate = saved;
	dl_expect(ps, ':', "':' in conditional expression");
	dl_nest(ps, n->loc);
	n->c = parse_conditional(ps);
	dl_unnest(ps);
	/* a condition that is an integer constant already: the branch it takes, as DTrace's
	   parser takes it (dt_node_op3), an action too (the DTraceToolkit's
	   "OPT_printid ? printf(...) : 1;", OPT_printid an inline) */
	if (parse_time_const(ps, c))
		return dl_eval_const(ps, c) ? n->b : n->c;
	return n;
}

struct dl_node *dl_parse_assign_expr(struct dl_parser *ps)
{
	struct dl_node *lhs = parse_conditional(ps);

	if (!is_assign_op(ps->tok.kind))
		return lhs;
	struct dl_node *n = node(ps, DL_N_BINARY, ps->tok.loc);
	n->op = ps->tok.kind;
	dl_advance(ps);
	n->a = lhs;
	dl_nest(ps, n->loc);
	n->b = dl_parse_assign_expr(ps);
	dl_unnest(ps);
	return n;
}

struct dl_node *dl_parse_expr(struct dl_parser *ps)
{
	struct dl_node *n = dl_parse_assign_expr(ps);
	unsigned depth = ps->depth;

	while (ps->tok.kind == ',') {
		struct dl_node *c = node(ps, DL_N_BINARY, ps->tok.loc);
		dl_nest(ps, c->loc);
		c->op = ',';
		dl_advance(ps);
		c->a = n;
		c->b = dl_parse_assign_expr(ps);
		n = c;
	}
	ps->depth = depth;
	return n;
}

/* -- Integer constant expressions --------------------------------------------------------- */

static _Noreturn void not_const(struct dl_parser *ps, struct dl_node *n)
{
	dl_error(ps, n->loc, "expression is not an integer constant");
}

/* An inline of an integer type (its expression), or NULL. */
static const struct dl_inline *int_inline(struct dl_parser *ps, const char *name)
{
	const struct dl_inline *in = dl_sym_get(&ps->p->inlines, name);

	return in && dl_type_argclass(in->type) == DL_ARG_INT ? in : NULL;
}

/*
 * Is n an integer constant as the parser sees it (DTrace's DT_NODE_INT at
 * parse time): a literal, an enumerator, an integer inline of one, and the
 * operators over those (no assignment, no comma, nothing of a probe)?
 */
static bool parse_time_const(struct dl_parser *ps, const struct dl_node *n)
{
	const struct dl_inline *in;

	switch (n->kind) {
	case DL_N_INT:
		return true;
	case DL_N_IDENT:
		if ((in = int_inline(ps, n->name)))
			return parse_time_const(ps, in->expr);
		return dl_sym_get(&ps->p->enumconsts, n->name) != NULL;
	case DL_N_UNARY:
		return (n->op == '-' || n->op == '+' || n->op == '~' || n->op == '!') &&
		       parse_time_const(ps, n->a);
	case DL_N_BINARY:
		return !is_assign_op(n->op) && n->op != ',' && parse_time_const(ps, n->a) &&
		       parse_time_const(ps, n->b);
	case DL_N_TERNARY:
		return parse_time_const(ps, n->a) && parse_time_const(ps, n->b) &&
		       parse_time_const(ps, n->c);
	default:
		return false;
	}
}

/* v as a value of type t (an integer type narrower than 64 bits keeps its bits). */
static int64_t narrow(struct dl_qtype t, int64_t v)
{
	struct dl_qtype r = dl_type_resolve(t);
	unsigned bits = (unsigned)(r.t->size * 8);

	if (bits && bits < 64) {
		uint64_t mask = (1ull << bits) - 1;
		uint64_t u = (uint64_t)v & mask;
		if (r.t->is_signed && (u >> (bits - 1)))
			u |= ~mask;
		v = (int64_t)u;
	}
	return v;
}

int64_t dl_eval_const(struct dl_parser *ps, struct dl_node *n)
{
	int64_t a, b;

	switch (n->kind) {
	case DL_N_INT:
		return (int64_t)n->ival;
	case DL_N_IDENT: {
		struct dl_enumerator *e = dl_sym_get(&ps->p->enumconsts, n->name);
		const struct dl_inline *in = e ? NULL : int_inline(ps, n->name);
		if (in && parse_time_const(ps, in->expr))
			return narrow(in->type, dl_eval_const(ps, in->expr));
		if (!e)
			dl_error(ps, n->loc, "'%s' is not an integer constant", n->name);
		return e->value;
	}
	case DL_N_SIZEOF:
		if (!n->a) {
			struct dl_qtype r = dl_type_resolve(n->type);
			if (r.t->kind == DL_VOID || (!r.t->size && r.t->kind != DL_ARRAY))
				dl_error(ps, n->loc, "sizeof applied to an incomplete type");
			return (int64_t)r.t->size;
		}
		not_const(ps, n);
	case DL_N_CAST:
		if (dl_type_argclass(n->type) != DL_ARG_INT)
			not_const(ps, n);
		return narrow(n->type, dl_eval_const(ps, n->a));
	case DL_N_UNARY:
		a = dl_eval_const(ps, n->a);
		switch (n->op) {
		case '-': return (int64_t)(0 - (uint64_t)a);
		case '+': return a;
		case '~': return ~a;
		case '!': return !a;
		default: not_const(ps, n);
		}
	case DL_N_TERNARY:
		return dl_eval_const(ps, n->a) ? dl_eval_const(ps, n->b) : dl_eval_const(ps, n->c);
	case DL_N_BINARY:
		a = dl_eval_const(ps, n->a);
		b = dl_eval_const(ps, n->b);
		switch (n->op) {
		case '+': return (int64_t)((uint64_t)a + (uint64_t)b);
		case '-': return (int64_t)((uint64_t)a - (uint64_t)b);
		case '*': return (int64_t)((uint64_t)a * (uint64_t)b);
		case '/':
		case '%':
			if (b == 0)
				dl_error(ps, n->loc, "division by zero in constant expression");
			if (a == INT64_MIN && b == -1)
				return n->op == '/' ? a : 0;
			return n->op == '/' ? a / b : a % b;
		case T_SHL: return (b < 0 || b > 63) ? 0 : (int64_t)((uint64_t)a << b);
		case T_SHR: return (b < 0 || b > 63) ? 0 : a >> b;
		case '&': return a & b;
		case '|': return a | b;
		case '^': return a ^ b;
		case T_LAND: return a && b;
		case T_LOR: return a || b;
		case T_LXOR: return !a != !b;
		case T_EQ: return a == b;
		case T_NE: return a != b;
		case '<': return a < b;
		case '>': return a > b;
		case T_LE: return a <= b;
		case T_GE: return a >= b;
		default: not_const(ps, n);
		}
	default:
		not_const(ps, n);
	}
}
