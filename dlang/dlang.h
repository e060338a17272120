/* SPDX-License-Identifier: MIT */
/*
 * dlang: the D language front end shared by every udtrace tool. It owns
 * the lexer, the parser, the C type model, providers, translators, clauses,
 * and the compiler of D expressions to bytecode. It includes abi/ (the
 * bytecode it emits) and util/, and never a room that uses it (consumer/,
 * output/, probes/, dtrace-h/, dtrace-g/: docs/layout.md).
 *
 * One struct dl_program holds everything parsed from one or more D sources:
 * the C type model (typedefs, struct/union/enum tags, enumerators), providers
 * with their probes, translators, pragmas and script clauses. All of it lives
 * in the program's arena and is freed with dl_program_free(); nothing parsed
 * is ever freed on its own. dtrace -h and dtrace -G read the providers; the
 * consumer will read translators and clauses.
 *
 * Errors stop the parse at the first problem and are reported as
 * "file:line:col: error: message" (dl_program_errmsg()).
 */
#ifndef UDT_DLANG_H
#define UDT_DLANG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct dl_program;

/* A place in a source: file name (owned by the program), 1-based line and column. */
struct dl_loc {
	const char *file;
	int line;
	int col;
};

/* -- The C type model ---------------------------------------------------- */

enum dl_kind {
	DL_VOID,
	DL_INT,     /* every integer type, _Bool and enums' representation */
	DL_FLOAT,
	DL_PTR,
	DL_ARRAY,
	DL_FUNC,
	DL_STRUCT,
	DL_UNION,
	DL_ENUM,
	DL_TYPEDEF,
	DL_STRING,  /* D's string type */
};

#define DL_Q_CONST    0x1u
#define DL_Q_VOLATILE 0x2u
#define DL_Q_RESTRICT 0x4u

struct dl_type;

/* A type with its qualifiers, as used by a declaration. */
struct dl_qtype {
	struct dl_type *t;
	unsigned quals;
};

struct dl_member {
	const char *name;       /* NULL for an anonymous struct/union member */
	struct dl_qtype type;
	uint64_t off;           /* byte offset */
	uint8_t bit_off;        /* for bit-fields: bit offset within the unit at off */
	uint8_t bit_width;      /* 0: not a bit-field */
};

struct dl_enumerator {
	const char *name;
	int64_t value;
};

struct dl_param {
	const char *name;       /* NULL when the declaration gives none */
	struct dl_qtype type;
	struct dl_loc loc;
	const char *ctype;      /* a probe table's argument: its type as written ("conninfo_t *") */
};

struct dl_type {
	enum dl_kind kind;
	const char *name;       /* INT/FLOAT/VOID/STRING: spelling; STRUCT/UNION/ENUM: tag or NULL;
				   TYPEDEF: the typedef name */
	struct dl_qtype ref;    /* PTR: pointee; ARRAY: element; FUNC: return; TYPEDEF: target */
	uint64_t size;          /* bytes; 0 for void, functions, incomplete types */
	uint32_t align;
	bool is_signed;         /* INT */
	bool complete;          /* STRUCT/UNION/ENUM: a body has been seen */
	bool builtin;           /* predefined (not from any source) */
	const char *c_header;   /* builtin typedefs C also has: the header that defines it */
	uint64_t nelems;        /* ARRAY (0: unsized) */
	struct dl_param *params;   /* FUNC */
	size_t param_cnt;
	bool varargs;
	bool proto;             /* FUNC: parameters were declared (not "()") */
	struct dl_member *members; /* STRUCT/UNION */
	size_t member_cnt;
	struct dl_enumerator *enums; /* ENUM */
	size_t enum_cnt;
	struct dl_loc loc;      /* where it was declared (file NULL for builtins, until a
				   source redeclares one as the same type) */
	uint32_t depth;         /* PTR/ARRAY/FUNC/TYPEDEF: 1 + the deepest type it is made of */
};

/* Data models: sizes of long and pointers. */
enum dl_model {
	DL_LP64,
	DL_ILP32,
};

/* Strip typedefs (keeping the qualifiers accumulated on the way). */
struct dl_qtype dl_type_resolve(struct dl_qtype qt);

/* Classification of a probe argument, from the resolved type. */
enum dl_argclass {
	DL_ARG_INT,     /* integer or enum: passed as its own width and sign */
	DL_ARG_PTR,     /* pointer, array (decays), function (decays), string */
	DL_ARG_FLOAT,   /* floating point: refused by dtrace -h */
	DL_ARG_AGGR,    /* struct or union by value: refused */
	DL_ARG_VOID,    /* void (only valid alone, as "(void)") */
};

enum dl_argclass dl_type_argclass(struct dl_qtype qt);

/*
 * dl_type_cdecl() - spell a type in C, declaring name (may be NULL for an
 * abstract declarator): "const char *", "int (*cb)(int, char *)".
 * Returns a string allocated in the program's arena.
 */
const char *dl_type_cdecl(struct dl_program *p, struct dl_qtype qt, const char *name);

/*
 * dl_type_cdecl_east() - the same with qualifiers after what they qualify
 * ("char const *"): generated headers use it so that builds which rewrite
 * them with sed (memcached: s,char \*,const char \*,) cannot double a const.
 */
const char *dl_type_cdecl_east(struct dl_program *p, struct dl_qtype qt, const char *name);

/*
 * dl_type_to_c() - the type a C compiler would know for qt, for probe sites
 * that check their arguments: builtin typedefs that a C header defines keep
 * their names (uint32_t, size_t), other typedefs are replaced by what they
 * stand for, string becomes "const char *", and _Bool "unsigned char" (C++
 * has no _Bool). A struct, union or enum with a body in the D source is not
 * used: the D definition need not match the application's (provider files
 * often declare dummies), so such a type has no C equivalent: returns false.
 * On success *ret holds the type (built in the program's arena).
 */
bool dl_type_to_c(struct dl_program *p, struct dl_qtype qt, struct dl_qtype *ret);

/* A pointer to qt (allocated in the program's arena). */
struct dl_type *dl_type_ptr(struct dl_program *p, struct dl_qtype to);

/* The C header that defines a builtin typedef ("stdint.h"), or NULL. */
const char *dl_type_c_header(struct dl_qtype qt);

/* -- Providers ------------------------------------------------------------ */

/* DTrace stability levels and dependency classes (see docs/format.md). */
enum dl_stability {
	DL_STAB_INTERNAL, DL_STAB_PRIVATE, DL_STAB_OBSOLETE, DL_STAB_EXTERNAL,
	DL_STAB_UNSTABLE, DL_STAB_EVOLVING, DL_STAB_STABLE, DL_STAB_STANDARD,
};

enum dl_class {
	DL_CLASS_UNKNOWN, DL_CLASS_CPU, DL_CLASS_PLATFORM, DL_CLASS_GROUP,
	DL_CLASS_ISA, DL_CLASS_COMMON,
};

struct dl_attr {
	uint8_t name_stab;
	uint8_t data_stab;
	uint8_t dep_class;
};

/* The five attribute sets of a provider, in this order. */
enum dl_attr_which {
	DL_ATTR_PROVIDER, DL_ATTR_MODULE, DL_ATTR_FUNCTION, DL_ATTR_NAME, DL_ATTR_ARGS,
	DL_ATTR_CNT,
};

const char *dl_stability_name(unsigned s);
const char *dl_class_name(unsigned c);

struct dl_probe {
	const char *name;            /* as written, "request__start" */
	const char *dname;           /* as D shows it, "request-start" */
	struct dl_param *nargs;      /* native arguments */
	size_t narg_cnt;
	struct dl_param *xargs;      /* translated arguments; equal to nargs when none given */
	size_t xarg_cnt;
	uint8_t *mapping;            /* xargs[i] is translated from nargs[mapping[i]] */
	bool translated;             /* a ": (...)" list was given */
	struct dl_loc loc;
	struct dl_provider *provider;
};

struct dl_provider {
	const char *name;
	struct dl_probe **probes;
	size_t probe_cnt;
	struct dl_attr attr[DL_ATTR_CNT];
	struct dl_loc loc;
};

/* -- Expressions, translators and clauses ------------------------------------ */

enum dl_node_kind {
	DL_N_INT,        /* ival; type from suffix */
	DL_N_FLOAT,      /* fval */
	DL_N_STRING,     /* sval */
	DL_N_IDENT,      /* name; also self/this as a bare word */
	DL_N_MACRO,      /* $1, $target: name (without $), flag string form for $$ */
	DL_N_AGG,        /* @name (name "" for the anonymous @) */
	DL_N_UNARY,      /* op, a */
	DL_N_POSTFIX,    /* op (++ or --), a */
	DL_N_BINARY,     /* op, a, b (assignment operators included) */
	DL_N_TERNARY,    /* a ? b : c */
	DL_N_CAST,       /* (type) a */
	DL_N_SIZEOF,     /* sizeof expression a, or sizeof(type) when a is NULL */
	DL_N_OFFSETOF,   /* offsetof(type, name) */
	DL_N_STRINGOF,   /* stringof a */
	DL_N_XLATE,      /* xlate<type>(a) */
	DL_N_CALL,       /* name(args...) */
	DL_N_INDEX,      /* a[args...] (D allows tuples) */
	DL_N_MEMBER,     /* a.name */
	DL_N_PTRMEMBER,  /* a->name */
};

struct dl_node {
	enum dl_node_kind kind;
	int op;                      /* token kind of the operator */
	struct dl_loc loc;
	struct dl_node *a, *b, *c;
	struct dl_node **args;       /* CALL, INDEX */
	size_t arg_cnt;
	const char *name;
	const char *sval;
	size_t slen;
	uint64_t ival;
	double fval;
	bool flag;
	struct dl_qtype type;        /* CAST, SIZEOF(type), OFFSETOF, XLATE; INT: literal type */
};

/* Renders an operator token kind for messages: "+", "->", "sizeof". */
const char *dl_op_name(int op);

struct dl_xlator_member {
	const char *name;
	struct dl_node *expr;
	struct dl_loc loc;
};

struct dl_translator {
	struct dl_qtype out;         /* the translated-to type */
	struct dl_qtype in;          /* the input type */
	const char *in_name;         /* the input identifier (P in "<uiscsiproto_t *P>") */
	struct dl_xlator_member *members;
	size_t member_cnt;
	const char *binding;         /* from "#pragma D binding", or NULL */
	struct dl_loc loc;
	uint32_t seq;                /* its place among the program's inlines and translators */
	bool checked;                /* by dl_check_decls() */
};

enum dl_stmt_kind {
	DL_S_EXPR,
	DL_S_IF,
	DL_S_BLOCK,
	DL_S_EMPTY,
};

struct dl_stmt {
	enum dl_stmt_kind kind;
	struct dl_loc loc;
	struct dl_node *expr;        /* EXPR; IF condition */
	struct dl_stmt **body;       /* BLOCK; IF: then (body[0]) and else (body[1] or NULL) */
	size_t body_cnt;
};

struct dl_clause {
	const char **pdescs;         /* probe descriptions as written, e.g. "http*:::request-start" */
	size_t pdesc_cnt;
	struct dl_node *predicate;   /* NULL when none */
	struct dl_stmt **stmts;
	size_t stmt_cnt;
	struct dl_loc loc;
};

/* "#pragma D depends_on <kind> <name>" */
struct dl_depend {
	const char *kind;            /* "library", "provider", "module" */
	const char *name;
	struct dl_loc loc;
};

/* "#pragma D option name=value" */
struct dl_option {
	const char *name;
	const char *value;           /* NULL when given without "=" */
	struct dl_loc loc;
};

/* -- The program ----------------------------------------------------------- */

/* Returns a new, empty program with the builtin types of the data model. */
struct dl_program *dl_program_new(enum dl_model model);
void dl_program_free(struct dl_program *p);

/*
 * dl_parse() - parse D source text into the program. name is used in
 * messages; text need not be NUL-terminated. When preprocessed is false,
 * cpp conditionals (#if...) are errors that say to use -C, and other '#'
 * lines but #pragma, #ident and line markers are comments. On error the
 * program keeps what was parsed before the error.
 * Returns 0, or -1 with dl_program_errmsg() set.
 */
int dl_parse(struct dl_program *p, const char *name, const char *text, size_t len,
	     bool preprocessed);

/*
 * dl_errtag() - DTrace's tag of a compile error (its dt_errtags.h names:
 * "D_OP_INCOMPAT"), from the message's words, for -x errtags; "D_UNKNOWN"
 * for one DTrace has no tag of; NULL for a message that is not a compile
 * error's ("file:line:col: error: ...").
 */
const char *dl_errtag(const char *msg);

/* The declarations, definitions and clauses the last dl_parse() read (0: an empty program). */
size_t dl_program_unit_items(const struct dl_program *p);

/* The last error, "file:line:col: error: message", or NULL. */
const char *dl_program_errmsg(const struct dl_program *p);

enum dl_model dl_program_model(const struct dl_program *p);

/* What was parsed. Arrays stay valid until the next dl_parse() or free. */
struct dl_provider *const *dl_program_providers(const struct dl_program *p, size_t *ret_cnt);
struct dl_translator *const *dl_program_translators(const struct dl_program *p, size_t *ret_cnt);
struct dl_clause *const *dl_program_clauses(const struct dl_program *p, size_t *ret_cnt);
const struct dl_depend *dl_program_depends(const struct dl_program *p, size_t *ret_cnt);
const struct dl_option *dl_program_options(const struct dl_program *p, size_t *ret_cnt);

/* Look up a typedef name or a tagged type ("struct foo"); NULL if unknown. */
struct dl_type *dl_lookup_typedef(const struct dl_program *p, const char *name);
struct dl_type *dl_lookup_tag(const struct dl_program *p, enum dl_kind kind, const char *tag);

/* -- Compiling to bytecode (compile.c) --------------------------------------------- */

/*
 * What the compiler knows of the probe an expression is compiled for: D's
 * probe variables are constants of each enabled probe, so predicates on
 * them cost nothing at fire time.
 */
struct dl_probe_ctx {
	const char *prov;            /* as D names it, with the process ID: "http1234" */
	const char *mod;
	const char *func;            /* "" when the site's function is not known */
	const char *name;            /* "request-start" */
	const char *execname;
	const struct dl_probe *probe; /* for args[] types; NULL for BEGIN/END */
	uint32_t id;                 /* the probe's ID (dtrace -l's), D's id */
	int pid;
	uint64_t strsize;            /* a constant string is cut at strsize - 1 bytes (0: never) */
};

/* A compiled expression. */
struct dl_difo {
	uint8_t *bytes;              /* struct udt_difo and its body (malloc'ed); NULL when constant */
	size_t sz;
	struct dl_qtype type;        /* the value's type */
	bool is_const;               /* known at compile time: */
	int64_t const_val;           /* an integer */
	const char *const_str;       /* or a string (then is_const and type string) */
	bool is_string;              /* the value is a string */
	bool copyinstr;              /* the value is copyinstr(address): bytes is the address's DIFO */
	bool is_object;              /* (dl_compile_object()) the address of an object of type */
	uint64_t str_max;            /* copyinstr: at most this many bytes (a char array); 0: strsize */
	int direct_arg;              /* >= 0: the value is native argument N, as is (copyinstr:
					the address is) */
	int direct_var;              /* >= 0: the value is builtin variable N (enum udt_var) */
	bool writes;                 /* it writes the process's memory (copyout(), copyoutstr()):
					destructive */
};

void dl_difo_free(struct dl_difo *d);

/*
 * dl_compile() - compile expr (from a clause of p) for one probe.
 * Return: 0 with *ret filled, or -1 with a "file:line:col: error: ..."
 * message in *ret_err (malloc'ed).
 */
int dl_compile(struct dl_program *p, const struct dl_node *expr, const struct dl_probe_ctx *ctx,
	       struct dl_difo *ret, char **ret_err);
/*
 * dl_compile_narrow() - the same, the value narrowed to its type: D computes
 * in 64 bits (int i * i may exceed an int), and what is recorded at its
 * type's size, as an aggregation's key, is cut to it.
 */
int dl_compile_narrow(struct dl_program *p, const struct dl_node *expr,
		      const struct dl_probe_ctx *ctx, struct dl_difo *ret, char **ret_err);
/*
 * dl_compile_object() - the same, but a struct, union or array (of the
 * process or a variable) gives its address (is_object): print()'s value.
 */
int dl_compile_object(struct dl_program *p, const struct dl_node *expr,
		      const struct dl_probe_ctx *ctx, struct dl_difo *ret, char **ret_err);

/*
 * dl_check_decls() - check the inlines and translators of p not checked yet,
 * as DTrace checks them where they are declared (so that one that is wrong
 * is an error even if no clause uses it): each compiled as its first use
 * would be, in a context without a probe (ctx), seeing only the
 * declarations before it. One that uses args[] is checked where it is used.
 * Return: 0, or -1 with a "file:line:col: error: ..." message in *ret_err
 * (malloc'ed).
 */
int dl_check_decls(struct dl_program *p, const struct dl_probe_ctx *ctx, char **ret_err);

/*
 * D variables, declared by their first assignment as the program compiles:
 * thread-local (self->x), clause-local (this->x) and global (x), numbered
 * from 0 in each scope.
 */
enum dl_var_scope { DL_VAR_THREAD, DL_VAR_LOCAL, DL_VAR_GLOBAL, DL_VAR_SCOPES };

/* The integer and pointer variables of a scope (8 bytes each). */
size_t dl_program_var_count(const struct dl_program *p, enum dl_var_scope scope);
/*
 * The string slots of a scope's variables (strsize bytes each): a string
 * variable's, and those a struct, union or array variable takes.
 */
size_t dl_program_strvar_count(const struct dl_program *p, enum dl_var_scope scope,
			       uint64_t strsize);
/*
 * The bytes of the largest element of the program's associative arrays
 * (struct udt_dynvar, its key and its value) with strings of strsize bytes;
 * 0 when it has none.
 */
uint64_t dl_program_dyn_chunk(const struct dl_program *p, uint64_t strsize);
/*
 * Is x an assignment, ++ or --, or a call of a subroutine that returns
 * nothing (bcopy(), copyinto()): an expression a statement has for its effect?
 */
bool dl_node_is_effect(const struct dl_node *x);
/*
 * The name a value is known by: the variable, member or function its
 * expression x ends in ("arg0", "hri_uri", "probefunc", "ustack"), looking
 * through casts, unary operators, indexing (args[1]: "args") and the
 * subroutines that read a value (copyinstr(p): p's name); NULL when it has
 * none (a constant, an arithmetic expression). For names of fields and labels.
 */
const char *dl_node_name(const struct dl_node *x);
/* Is x a call of a subroutine (strlen(), substr()...), and of one that returns nothing? */
bool dl_node_is_subr(const struct dl_node *x);
bool dl_node_is_void_subr(const struct dl_node *x);
/*
 * Is x a call of one of DTrace's actions (trace(), printf(), exit()...),
 * which DTrace types void: no value an operator, a subroutine or another
 * action can take?
 */
bool dl_node_is_action(const struct dl_node *x);
/*
 * Do the program's clauses need the runtime's memory for strings: string
 * variables, associative arrays, or subroutine calls (whose results go to a
 * scratch space)? Known once every clause is compiled.
 */
bool dl_program_uses_mem(const struct dl_program *p);

/* The size in bytes a value of type qt has when traced (1, 2, 4 or 8), and its signedness. */
unsigned dl_type_trace_size(struct dl_qtype qt, bool *ret_signed);

/*
 * Macro arguments: argv[0] is $0 (the script's name), argv[1...] $1...;
 * with defaultargs, unset ones are 0 ($1) and "" ($$1). Set them before
 * parsing: probe descriptions are expanded as they are read.
 */
void dl_program_set_macros(struct dl_program *p, const char *const *argv, size_t argc,
			   bool defaultargs);
void dl_program_set_defaultargs(struct dl_program *p, bool defaultargs);
/* 0, or -1 with DTrace's message when an argument no clause refers to was given. */
int dl_program_check_macros(const struct dl_program *p, char **ret_err);

/* Parse the type name text ("struct foo *") in p's scope: 0, or -1 (p's errmsg says why). */
int dl_parse_type_str(struct dl_program *p, const char *text, struct dl_qtype *ret);

/* Convert a probe name as written to the form D shows: "__" becomes "-". */
char *dl_probe_dname(const char *name);

#endif /* UDT_DLANG_H */
