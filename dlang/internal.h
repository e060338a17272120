/* SPDX-License-Identifier: MIT */
/* dlang's private interfaces: the arena, the symbol tables, the lexer and the parser state. */
#ifndef UDT_DLANG_INTERNAL_H
#define UDT_DLANG_INTERNAL_H

#include <setjmp.h>
#include <stdarg.h>

#include "dlang/dlang.h"

/* -- Arena: every allocation of a program, freed at once ------------------ */

struct dl_chunk;

struct dl_arena {
	struct dl_chunk *head;
};

void *dl_alloc(struct dl_program *p, size_t sz);
char *dl_strndup(struct dl_program *p, const char *s, size_t len);
char *dl_strdup(struct dl_program *p, const char *s);
char *dl_printf(struct dl_program *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void dl_arena_free(struct dl_arena *a);

/*
 * Append elem (elem_sz bytes) to an arena array: *arr holds *cnt elements and
 * room for *cap. Growth copies into a new arena block (the old one stays until
 * the program is freed; arrays here are small).
 */
void dl_push(struct dl_program *p, void *arr, size_t *cnt, size_t *cap, size_t elem_sz,
	     const void *elem);
#define DL_PUSH(p, arr, cnt, cap, value)                                                   \
	do {                                                                               \
		__typeof__(*(arr)) dl__v = (value);                                        \
		dl_push((p), &(arr), &(cnt), &(cap), sizeof(dl__v), &dl__v);               \
	} while (0)

/* -- Symbol tables ------------------------------------------------------------ */

/* A string-keyed open-addressing hash table whose storage is in the arena. */
struct dl_symtab {
	const char **keys;
	void **vals;
	size_t cnt;
	size_t cap;
};

void *dl_sym_get(const struct dl_symtab *t, const char *key);
void dl_sym_put(struct dl_program *p, struct dl_symtab *t, const char *key, void *val);

/* -- Tokens ---------------------------------------------------------------------- */

enum dl_tok {
	T_EOF = 0,
	/* Single-character operators use their character value. */
	T_IDENT = 256,
	T_INT,
	T_FLOAT,
	T_STRING,
	T_CHAR,
	T_MACRO,       /* $1 $target */
	T_MACRO_STR,   /* $$1 */
	T_AGG,         /* @name or @ */
	T_PRAGMA,      /* "#pragma" line; text is the rest of the line */
	T_ARROW,       /* -> */
	T_INC, T_DEC,  /* ++ -- */
	T_SHL, T_SHR,  /* << >> */
	T_LE, T_GE, T_EQ, T_NE,
	T_LAND, T_LOR, T_LXOR, /* && || ^^ */
	T_MUL_EQ, T_DIV_EQ, T_MOD_EQ, T_ADD_EQ, T_SUB_EQ, T_SHL_EQ, T_SHR_EQ,
	T_AND_EQ, T_XOR_EQ, T_OR_EQ,
	T_ELLIPSIS,
	/* Keywords */
	T_KW_FIRST,
	K_AUTO = T_KW_FIRST, K_BREAK, K_CASE, K_CHAR, K_CONST, K_CONTINUE, K_COUNTER,
	K_DEFAULT, K_DO, K_DOUBLE, K_ELSE, K_ENUM, K_EXTERN, K_FLOAT, K_FOR, K_GOTO, K_IF,
	K_IMPORT, K_INLINE, K_INT, K_LONG, K_OFFSETOF, K_PROBE, K_PROVIDER, K_REGISTER,
	K_RESTRICT, K_RETURN, K_SELF, K_SHORT, K_SIGNED, K_SIZEOF, K_STATIC, K_STRING,
	K_STRINGOF, K_STRUCT, K_SWITCH, K_THIS, K_TRANSLATOR, K_TYPEDEF, K_UNION,
	K_UNSIGNED, K_USERLAND, K_VOID, K_VOLATILE, K_WHILE, K_XLATE, K_BOOL,
	T_KW_LAST,
};

struct dl_token {
	int kind;
	struct dl_loc loc;
	size_t off;            /* byte offset of the token's first character */
	const char *text;      /* identifier, pragma text, string contents (arena) */
	size_t len;            /* length of text (strings may contain NULs) */
	uint64_t ival;
	double fval;
	int int_suffix;        /* bit 0: unsigned, bits 1-2: long count */
};

/* A "#define NAME" read as a comment (no -C): its name, for a hint where NAME is unknown. */
struct dl_skipped_define {
	const char *name;
	struct dl_loc loc;
	struct dl_skipped_define *next;
};

struct dl_lexer {
	struct dl_program *p;
	const char *src;
	size_t len;
	size_t pos;
	int line;
	int col;
	const char *file;
	bool preprocessed;
	bool at_line_start;    /* only blanks seen since the last newline */
	struct dl_loc skipped_include;  /* the first #include read as a comment (file NULL: none) */
	struct dl_skipped_define *skipped_defines;
};

void dl_lex_init(struct dl_lexer *lx, struct dl_program *p, const char *file,
		 const char *src, size_t len, bool preprocessed);
void dl_lex_next(struct dl_lexer *lx, struct dl_token *tok);
/* Re-position the lexer at tok's first character. */
void dl_lex_rewind(struct dl_lexer *lx, const struct dl_token *tok);
/*
 * Read a probe description (provider:module:function:name with globs) at the
 * current position; NULL if the text there is not one.
 */
const char *dl_lex_pdesc(struct dl_lexer *lx, struct dl_loc *ret_loc);
const char *dl_tok_name(int kind);
/*
 * A hint for an error about name when cpp did not run: " (its #define at
 * f.d:3 is a comment ...)", or the same about a skipped #include; "" if none.
 */
const char *dl_lex_cpp_hint(const struct dl_lexer *lx, const char *name);

/* -- Parser state, shared by parse.c and expr.c -------------------------------------- */

struct dl_parser {
	struct dl_program *p;
	/* a declarator's "[type, ...]": an associative array's keys (parse.c) */
	struct dl_qtype *assoc_keys;
	size_t assoc_key_cnt;
	bool assoc;
	struct dl_lexer lx;
	struct dl_token tok;       /* current */
	struct dl_token ahead;     /* one token of lookahead, valid when have_ahead */
	bool have_ahead;
	bool in_predicate;         /* a '/' before '{' ends the expression */
	const char *pending_binding; /* "#pragma D binding" awaiting its translator */
	unsigned depth;            /* nesting of what is being parsed (dl_nest()) */
};

/*
 * The deepest nesting the parser accepts: of expressions (each parenthesis,
 * operator, cast and call, and each operand of a chain such as a + b + c,
 * whose tree is as deep as it is long), of statements and declarators, and of
 * derived types (pointers, arrays, functions and typedefs over one another).
 * What runs after the parser (type checks, the code generator, dtrace -h's
 * declarations) recurses over what it built, so this bounds every stack
 * the input could otherwise choose the depth of.
 */
#define DL_MAX_NESTING 256

/* One level deeper at loc, or the error naming the limit; dl_unnest() leaves it. */
void dl_nest(struct dl_parser *ps, struct dl_loc loc);
static inline void dl_unnest(struct dl_parser *ps)
{
	ps->depth--;
}
/* A derived type: the error naming the limit if it is nested too deeply. */
void dl_check_type_depth(struct dl_parser *ps, struct dl_qtype t, struct dl_loc loc);

_Noreturn void dl_error(struct dl_parser *ps, struct dl_loc loc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
_Noreturn void dl_verror(struct dl_program *p, struct dl_loc loc, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

void dl_advance(struct dl_parser *ps);
const struct dl_token *dl_peek(struct dl_parser *ps);
bool dl_accept(struct dl_parser *ps, int kind);
void dl_expect(struct dl_parser *ps, int kind, const char *what);

/* True when the token starts a type name (a type keyword or a typedef name). */
bool dl_tok_starts_type(struct dl_parser *ps, const struct dl_token *tok);
/* Parse a type name (specifiers plus abstract declarator), as in casts and sizeof. */
struct dl_qtype dl_parse_type_name(struct dl_parser *ps);
struct dl_node *dl_parse_expr(struct dl_parser *ps);        /* with commas */
struct dl_node *dl_parse_assign_expr(struct dl_parser *ps); /* no commas */
int64_t dl_eval_const(struct dl_parser *ps, struct dl_node *n);

/* -- The program ------------------------------------------------------------------------ */

struct dl_program {
	struct dl_arena arena;
	enum dl_model model;
	struct dl_symtab typedefs;     /* name -> struct dl_type (TYPEDEF) */
	struct dl_symtab tags;         /* "struct x" / "union x" / "enum x" -> struct dl_type */
	struct dl_symtab enumconsts;   /* name -> struct dl_enumerator */
	struct dl_symtab provider_names; /* name -> struct dl_provider */
	struct dl_type *t_void, *t_char, *t_double, *t_string;
	struct dl_provider **providers;
	size_t provider_cnt, provider_cap;
	struct dl_translator **xlators;
	size_t xlator_cnt, xlator_cap;
	struct dl_clause **clauses;
	size_t clause_cnt, clause_cap;
	struct dl_depend *depends;
	size_t depend_cnt, depend_cap;
	struct dl_option *options;
	size_t option_cnt, option_cap;
	/* "#pragma D attributes" seen, applied once all providers are known */
	struct dl_attr_pragma *attr_pragmas;
	size_t attr_pragma_cnt, attr_pragma_cap;
	/* macro arguments: $0 (the script) and $1... (dtrace's operands) */
	const char **margv;            /* arena copies */
	size_t margc;
	bool *margs_used;              /* referenced by the program (arena) */
	bool defaultargs;              /* unset ones are 0 and "" */
	char *errmsg;                  /* malloc'ed */
	jmp_buf *jb;                   /* the active parse's error exit */
	/* variables (compile_var.c) */
	struct dl_var *vars;
	size_t var_cnt, var_cap;
	struct dl_symtab inlines;      /* name -> struct dl_inline */
	uint32_t decl_seq;             /* inlines and translators declared so far */
	size_t unit_items;             /* declarations and clauses of the last dl_parse() */
	bool uses_mem;                 /* a clause calls subroutines (needs a scratch space) */
};

/*
 * A D variable: an integer or pointer, a string, or an associative array,
 * declared by a declaration or by its first assignment in the script.
 */
struct dl_var {
	enum dl_var_scope scope;
	const char *name;              /* (the node's, in the arena) */
	struct dl_qtype type;          /* its values' (an array's elements') */
	uint32_t id;                   /* among those of its kind: scalars and strings of its
					  scope; arrays, all scopes together */
	bool is_str;                   /* a string: a slot of strsize bytes */
	bool is_ref;                   /* a struct, union or array: bytes, in as many string
					  slots as it takes (an array's values: bytes) */
	bool is_array;                 /* an associative array, with keys of these types: */
	struct dl_qtype *keys;         /* (arena) */
	size_t nkeys;
	struct dl_loc loc;             /* where it was declared */
};

/* "inline type name = expression;" */
struct dl_inline {
	const char *name;
	struct dl_qtype type;
	struct dl_node *expr;
	struct dl_loc loc;
	uint32_t seq;                  /* its place among the inlines and translators */
	bool checked;                  /* by dl_check_decls() */
};

/*
 * compile_var.c: declare a variable (a declaration's; NULL with *ret_err
 * set when it conflicts with an earlier one). keys when an array.
 */
struct dl_var *dl_var_declare(struct dl_program *p, enum dl_var_scope scope, const char *name,
			      struct dl_qtype type, bool array, const struct dl_qtype *keys,
			      size_t nkeys, struct dl_loc loc, const char **ret_err);

/*
 * macro.c: the text of macro argument $name ("1"), marked used; NULL when it
 * is not set (and not defaulted). *ret_numbered: name is a number.
 */
const char *dl_macro_arg(struct dl_program *p, const char *name, bool *ret_numbered);
/* pd with its $N and $$N replaced; NULL with *ret_bad the name of an unset one. */
const char *dl_expand_pdesc(struct dl_program *p, const char *pd, char **ret_bad);

struct dl_attr_pragma {
	struct dl_attr attr;
	const char *provider;
	int which;
	struct dl_loc loc;
};

/* ctype.c */
void dl_types_init(struct dl_program *p);
struct dl_type *dl_type_new(struct dl_program *p, enum dl_kind kind, struct dl_loc loc);
struct dl_type *dl_type_array(struct dl_program *p, struct dl_qtype elem, uint64_t n);
/* How deeply qt is derived (struct dl_type.depth; 0 for a base type). */
uint32_t dl_type_depth(struct dl_qtype qt);
/* Lay out a struct or union whose members are set: offsets, size, alignment. */
void dl_type_layout(struct dl_program *p, struct dl_type *t);
bool dl_type_equal(struct dl_qtype a, struct dl_qtype b);
/*
 * Whether a and b are the same type for D, through any chain of typedefs:
 * the same kind and qualifiers, integers and floats of the same size and
 * signedness (long and long long on LP64), pointers to the same; otherwise
 * dl_type_equal().
 */
bool dl_type_same_repr(struct dl_qtype a, struct dl_qtype b);
const char *dl_tag_key(struct dl_program *p, enum dl_kind kind, const char *tag);

#endif /* UDT_DLANG_INTERNAL_H */
