/* SPDX-License-Identifier: MIT */
/*
 * output: how what a session traced is written (docs/output.md). The
 * consumer (consumer/) decides what happened: a record of an enabling with
 * its values, a printa() or the aggregations printed at exit, a count of
 * drops, a fault. It hands each here, typed and described, and takes no
 * decision about how it looks. Each format is one backend, a struct
 * out_ops: text as dtrace(1) prints it (text.c); JSON and XML as FreeBSD's
 * dtrace -x oformat writes them (json.c); a CTF trace for babeltrace2 and
 * Trace Compass (ctf.c). Messages about drops and faults go to stderr as
 * DTrace words them whatever the format (output.c), and each backend may
 * also write them into its own output.
 *
 * It owns: the description of what a record holds (struct out_ecb, its
 * fields) and of an aggregation (struct out_aggvar), the backends, DTrace's
 * formatting of values: printf() formats, parsed and checked against D
 * types and printed (printf.c), print()'s typed values (print.c), stacks and
 * addresses as text and folded (stack.c), the values and order of
 * aggregations (agg.c).
 *
 * It includes dlang/ (the C type model, for print() and printf()'s checks),
 * abi/ (the aggregating functions' numbers), util/ and the system's: never
 * consumer/, proc/, runtime/ or vm/. It reads no shared memory and no /proc:
 * what names an address is the consumer's (struct out_namer).
 *
 * A record reaches a backend as record_begin(), then value() for each field
 * of its enabling that shows something, in the clause's order, then
 * record_end(); a printa() among them calls agg().
 */
#ifndef UDT_OUTPUT_H
#define UDT_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "abi/abi.h"
#include "dlang/dlang.h"

/* -- Options ----------------------------------------------------------------------------------- */

/* The session's options that change how things look (setopt() may change them as it runs). */
struct out_opts {
	bool quiet;                /* -q */
	bool flowindent;           /* -F: entry and return probes' records indented as a call tree */
	bool rawbytes;             /* trace() of a string prints its bytes, as tracemem() */
	bool agg_folded;           /* aggfmt=folded: stack-keyed aggregations as folded lines */
	bool aggprint;             /* -O: with oformat, the aggregations are printed at exit */
	uint32_t stackindent;      /* the indent of a stack's frames in trace() output */
	char oformat[32];          /* the output's format ("" text) */
	char ctfdir[4096];         /* the CTF trace's directory ("": none) */
};

/*
 * out_format_parse() - an oformat value: "text", "json", "jsonl" or "xml",
 * then modifiers after commas ("pretty" for JSON's indented form).
 * Return: 0 with the format in *ret_form (a static string) and *ret_pretty,
 * or -1 when the value is not one of them.
 */
int out_format_parse(const char *v, const char **ret_form, bool *ret_pretty);

/* -- Addresses -------------------------------------------------------------------------------- */

/* How an address is printed: a trace()d value is an integer. */
enum out_addrfmt {
	OUT_ADDR_NONE,
	OUT_ADDR_UADDR,            /* uaddr(): module`function+0xoff */
	OUT_ADDR_USYM,             /* usym(), ufunc(): module`function */
	OUT_ADDR_UMOD,             /* umod(): module */
	OUT_ADDR_USTACK,           /* ustack(): a frame a line */
};

/*
 * What names the addresses of one traced process: name() gives pc's text as
 * fmt says (OUT_ADDR_UADDR, USYM or UMOD); ret: pc is a return address. The
 * text stays valid until the namer's owner frees it. A NULL namer, or one
 * whose name is NULL, prints addresses as 0x....
 */
struct out_namer {
	const char *(*name)(void *arg, uint64_t pc, enum out_addrfmt fmt, bool ret);
	void *arg;
};

/* pc's name by namer n (0x... without one). */
const char *out_name(const struct out_namer *n, uint64_t pc, enum out_addrfmt fmt, bool ret);

/* The text of the stack of n return addresses at pcs (8 bytes each, 0 ends them), as
   dt_print_ustack() prints it: a newline, then a frame a line, indented (malloc'ed). */
char *out_stack_text(const struct out_namer *n, const uint8_t *pcs, uint32_t nframes,
		     uint32_t indent);

/* -- printf() (printf.c) -------------------------------------------------------------------- */

enum out_pfclass {
	OUT_PF_SINT,               /* d i */
	OUT_PF_UINT,               /* o u x X: integers (and pointers) */
	OUT_PF_ADDR,               /* p a A: pointers and integers */
	OUT_PF_CHAR,               /* c C: an integer of 4 bytes at most */
	OUT_PF_STR,                /* s S */
	OUT_PF_TIME,               /* T Y: an 8-byte integer */
	OUT_PF_WIDTH,              /* a '*' width or precision */
	OUT_PF_FLOAT,              /* e E f g G */
	OUT_PF_LDOUBLE,            /* Le LE Lf Lg LG: no D value is a long double here */
	OUT_PF_TYPED,              /* hd lu llx lc...: an integer of the length's size and sign */
	OUT_PF_STACK,              /* k: ustack() */
};

#define OUT_PF_STAR (-2)           /* width or precision given by a value */

struct out_pfconv {
	char *prefix;              /* the text before the conversion ("%%" made '%') */
	char conv;                 /* the conversion character; 0: only the text */
	enum out_pfclass cls;
	char flags[8];
	int width, prec;           /* -1 none, OUT_PF_STAR */
	char name[8];              /* DTrace's: the length letters and conv ("lld", "d") */
	bool agg;                  /* printa's %@: the aggregation's value */
};

/* A printf() format, parsed and checked when the script compiles. */
struct out_printf {
	struct out_pfconv *v;
	size_t cnt;
	size_t nvals;              /* the values the format takes, '*' ones included */
	bool names_addrs;          /* it has %a or %A: addresses named as uaddr() names them */
};

/* What an argument of printf() is. */
enum out_pfvalue { OUT_PFV_INT, OUT_PFV_PTR, OUT_PFV_STR, OUT_PFV_OTHER, OUT_PFV_FLOAT,
		   OUT_PFV_STACK };

/* An argument of printf(): its kind, its type's name (messages), its D type (t NULL: unknown). */
struct out_pfval {
	enum out_pfvalue kind;
	const char *name;
	struct dl_qtype type;
};

/* A value for printing: an integer of size bytes, or a string. */
struct out_pfarg {
	uint64_t v;
	unsigned size;
	const char *s;
	void (*fn)(FILE *out, const void *arg); /* prints the value itself (a distribution) */
	const void *fn_arg;
	bool is_float;             /* v holds the bits of a float (size 4) or a double (8) */
	bool is_unsigned;          /* of an unsigned type: %d and %i print it as %u (DTrace's) */
};

/* 0, or -1 with DTrace's message (no location) in *ret_err. */
int out_printf_parse(const char *fmt, struct out_printf *ret, char **ret_err);
/* Check the arguments against the format of fn(), as DTrace checks them. */
int out_printf_check(const char *fn, const struct out_printf *f, const struct out_pfval *vals,
		     size_t nvals, char **ret_err);
/* namer: what names the addresses of %a and %A (NULL: printed as 0x...) */
void out_printf_print(FILE *out, const struct out_printf *f, const struct out_pfarg *args,
		      size_t nargs, const struct out_namer *namer);
void out_printf_free(struct out_printf *f);

/* -- print() (print.c) ---------------------------------------------------------------------- */

/* size bytes of an object of type (of prog's types), as illumos's print() shows them. */
void out_print_typed(FILE *out, struct dl_program *prog, struct dl_qtype type,
		     const uint8_t *bytes, uint64_t size);

/* -- Records ------------------------------------------------------------------------------------ */

/* A probe, as records name it. */
struct out_probe {
	uint32_t id;
	const char *prov, *mod, *func, *name;
};

/* What one field of a record is. */
enum out_fkind {
	OUT_F_INT,                 /* trace() of an integer (or of a float's bits) */
	OUT_F_STR,                 /* trace() of a string */
	OUT_F_PRINTF,              /* printf(): its values are the nvals fields after it */
	OUT_F_STACK,               /* ustack(): nframes return addresses */
	OUT_F_ADDR,                /* uaddr(), usym(), ufunc(), umod(): named as addr says */
	OUT_F_MEM,                 /* tracemem(): bytes */
	OUT_F_PRINT,               /* print(): a value of type `type` */
};

/*
 * One value an enabling's record shows: described once, when the clause is
 * compiled, for every record of it (and for a CTF trace's event classes).
 */
struct out_field {
	enum out_fkind kind;
	const char *name;          /* what the clause calls it: the D expression's variable, member
				      or function ("arg0", "probefunc", "ustack"); NULL: none */
	unsigned size;             /* an integer's display size (1, 2, 4, 8) */
	bool is_signed;
	bool is_float;             /* the bits of a float (size 4) or a double (size 8) */
	bool in_printf;            /* a value of the printf() field before it */
	enum out_addrfmt addr;     /* an address (OUT_F_ADDR, or a printf() value): how named */
	uint32_t nframes;          /* OUT_F_STACK */
	const struct out_printf *pf; /* OUT_F_PRINTF: its format, and its values' count */
	size_t nvals;
	struct dl_qtype type;      /* OUT_F_PRINT: the value's type, in prog */
	struct dl_program *prog;
};

/* The fields of an enabling's records, in the order their values are handed over. */
struct out_ecb {
	struct out_field *fields;
	size_t nfields;
};

/* Where a record comes from: its enabling, its header, and the thread that wrote it. */
struct out_rec {
	uint32_t epid;
	struct out_probe probe;
	const struct out_ecb *ecb;
	uint64_t timestamp;        /* ns, the session's clock (docs/output.md, "Clocks") */
	uint32_t cpu;
	int32_t pid, tid;
	const struct out_namer *namer; /* its process's addresses */
};

/* The value of one field of a record. */
struct out_val {
	const struct out_field *f;
	uint64_t v;                /* OUT_F_INT, OUT_F_ADDR */
	const char *s;             /* OUT_F_STR (and OUT_F_PRINT of a string) */
	const uint8_t *bytes;      /* OUT_F_STR: the bytes recorded (NULL: a constant);
				      OUT_F_STACK: the return addresses; OUT_F_MEM, OUT_F_PRINT:
				      the object */
	uint64_t size;             /* bytes at bytes */
	const struct out_pfarg *args; /* OUT_F_PRINTF: its values */
	size_t nargs;
};

/* -- Aggregations (agg.c) ----------------------------------------------------------------------- */

/* A key component's type, fixed by the aggregation's first use. */
struct out_aggkey {
	bool is_str;               /* (a stack or an address too: named when taken) */
	uint8_t sym;               /* enum out_addrfmt */
	unsigned size;             /* an integer's display size: 1, 2, 4 or 8 */
};

/* An aggregation variable of the program: @name, or @ (name ""). */
struct out_aggvar {
	const char *name;
	uint32_t id;               /* 1...: the order of first use in the program */
	const char *fname;         /* its aggregating function, as written */
	enum udt_agg_func func;
	int line;                  /* of its first use (the compiler's) */
	struct out_aggkey *keys;   /* the prototype: from the first use with keys compiled */
	size_t nkeys;
	bool keys_known;           /* (the compiler's) */
	int64_t lq_base;           /* lquantize() */
	uint32_t lq_step, lq_levels; /* (llquantize: lq_levels is its count of buckets) */
	uint16_t llq_factor, llq_low, llq_high, llq_nsteps; /* llquantize() */
	bool lq_known;             /* (the compiler's) */
	bool printed;              /* by printa(): not printed again at exit */
	int64_t normal;            /* normalize(): values print divided by it (0: 1) */
};

/* A key component of an aggregation entry: an integer (cut to its display size) or a string. */
struct out_aggkv {
	uint64_t v;
	const char *s;
};

/* An entry of an aggregation's totals: its keys and its value. */
struct out_aggent {
	const struct out_aggvar *var;
	struct out_aggkv *keys;
	int64_t *val;              /* the aggregating function's words (a distribution's buckets) */
	size_t vcnt;
	uint8_t *ck;               /* the canonical key (the consumer's) */
	size_t cklen;
	uint64_t hash;
};

/*
 * What printa() prints, or the aggregations printed at exit (one variable at
 * a time): nrows rows of nvars entries, row r's entry of vars[j] at
 * ents[r * nvars + j], sorted as the options say; every entry of a row has
 * the same keys.
 */
struct out_aggprint {
	struct out_aggvar *const *vars;
	size_t nvars;
	const struct out_printf *fmt; /* printa()'s format, or NULL */
	const struct out_aggent *const *ents;
	size_t nrows;
	bool at_exit;              /* printed at exit, not by printa() */
	const struct out_namer *namer; /* for printa()'s %a */
};

/* Is var's function a distribution (quantize, lquantize, llquantize)? */
bool out_agg_is_dist(const struct out_aggvar *var);
/* The value of entry e as DTrace prints it (normalized): avg, stddev (unsigned), the others. */
uint64_t out_agg_value(const struct out_aggent *e);
/*
 * Distribution e's n buckets, the ones DTrace shows (first to last: one
 * around the used ones), and the lowest value of each (*ret_lo, malloc'ed,
 * indexed as e->val); for lquantize() and llquantize() the first bucket is
 * "< lo[0]" and the last ">= lo[n - 1]".
 */
void out_agg_dist_range(const struct out_aggent *e, int *ret_n, int *ret_first, int *ret_last,
			int64_t **ret_lo);
/* As dt_aggregate.c orders entries of one variable: by value, and by key from keypos round. */
int out_agg_valcmp(const struct out_aggent *x, const struct out_aggent *y);
int out_agg_keycmp(const struct out_aggent *x, const struct out_aggent *y, unsigned keypos);
/* Is var printed folded with -x aggfmt=folded (a stack key, an integer value)? */
bool out_agg_foldable(const struct out_aggvar *var);
/* An entry's keys folded into one line ("frame;frame;...", other keys first); malloc'ed. */
char *out_agg_fold(const struct out_aggvar *var, const char *const *keys, const uint64_t *ints);

/* -- Drops and faults ------------------------------------------------------------------------- */

/* DTrace's kinds of drops (its DTRACEDROP_* numbers, which JSON gives as "kind"). */
enum out_drop_kind {
	OUT_DROP_PRINCIPAL = 0,    /* a thread's buffer was full */
	OUT_DROP_AGG = 1,          /* a thread's aggregation table was full */
	OUT_DROP_DYNVAR = 2,       /* the dynamic variable space was full */
	OUT_DROP_DYNVAR_RINSE = 3, /* ... with non-empty rinsing list */
	OUT_DROP_DYNVAR_DIRTY = 4, /* ... with non-empty dirty list */
	OUT_DROP_SPEC = 5,         /* a speculative buffer was full */
	OUT_DROP_SPEC_BUSY = 6,    /* speculate() found its buffers busy */
	OUT_DROP_SPEC_UNAVAIL = 7, /* speculation() found none free */
	OUT_DROP_LOST = 100,       /* records the target could not record (ours: no buffer yet) */
};
#define OUT_NDROPS 9               /* the kinds counted (OUT_DROP_LOST in the last slot) */

/* A count of drops: the kind, the thread (0: none), how many since the last report. */
struct out_drop {
	enum out_drop_kind kind;
	int32_t tid;
	uint64_t count;
	uint64_t total;            /* of this kind over the session */
	const char *msg;           /* DTrace's message, without "dtrace: " and the newline */
};

/* A fault in an enabling: DTrace's "error on enabled probe ID ...". */
struct out_fault {
	uint32_t epid;
	struct out_probe probe;
	uint32_t action;           /* 0: the predicate */
	uint32_t fault;            /* UDT_FAULT_* */
	uint32_t insn;
	uint64_t addr;
	struct out_rec where;      /* (its epid, probe and ecb unset) */
	const char *msg;           /* the message, without "dtrace: " and the newline */
};

/* -- The output of a session, and its backends ------------------------------------------------ */

struct out;

struct out_ops {
	/* the backend's state (o->priv) for format form ("json", "xml"...); 0, or -1
	   with *ret_err */
	int (*open)(struct out *o, const char *form, bool pretty, char **ret_err);
	/* the trace starts (before BEGIN) and ends (after END; the aggregations printed at
	   exit come between end_records and finish); finish may write the last of it */
	void (*start)(struct out *o);
	void (*end_records)(struct out *o);
	void (*finish)(struct out *o);
	void (*record_begin)(struct out *o, const struct out_rec *r);
	void (*value)(struct out *o, const struct out_val *v);
	void (*record_end)(struct out *o);
	void (*agg)(struct out *o, const struct out_aggprint *ap);
	/* optional: the message is on stderr already */
	void (*drop)(struct out *o, const struct out_drop *d);
	void (*fault)(struct out *o, const struct out_fault *f);
	void (*free)(struct out *o);
};

/* An enabling declared to the output (out_declare()), for a backend that describes them. */
struct out_decl {
	uint32_t epid;
	char *probe;               /* "prov:mod:func:name" */
	const struct out_ecb *ecb;
};

/* The output of a session (one for all its processes). */
struct out {
	FILE *f;                   /* where the records go (-o, or stdout) */
	const struct out_opts *o;  /* the session's (they change as it runs) */
	const struct out_ops *ops;
	void *priv;                /* the backend's */
	bool started, finished;
	uint64_t drop_totals[OUT_NDROPS]; /* by kind (OUT_DROP_LOST last) */
	int pid;                   /* -p's or -c's process (0: none), and its name, for a */
	const char *execname;      /* CTF trace's environment */
	struct out_rec cur;        /* the record being written (record_begin() to record_end()) */
	struct out_decl *decls;    /* the enablings declared, in the order declared */
	size_t ndecls, decl_cap;
};

extern const struct out_ops out__text;
extern const struct out_ops out__json;
extern const struct out_ops out__ctf;

/*
 * out_open() - o's backend, as o->o's oformat and ctfdir say, writing to f.
 * Return: 0, or -1 with *ret_err.
 */
int out_open(struct out *o, FILE *f, const struct out_opts *opts, char **ret_err);
/* Enabling epid of probe (its names copied) writes records of ecb (which outlives o). */
void out_declare(struct out *o, uint32_t epid, const struct out_probe *probe,
		 const struct out_ecb *ecb);
void out_start(struct out *o);
void out_record_begin(struct out *o, const struct out_rec *r);
void out_value(struct out *o, const struct out_val *v);
void out_record_end(struct out *o);
void out_agg(struct out *o, const struct out_aggprint *ap);
/* count drops of kind on thread tid (0: none): said on stderr, handed to the backend */
void out_drop(struct out *o, enum out_drop_kind kind, int32_t tid, uint64_t count);
/* Say count records of thread tid (0: of none) not recorded, and why: "N records WHAT". */
void out_lost(struct out *o, int32_t tid, uint64_t count, const char *what);
/* The fault f (its msg made here), said on stderr and handed to the backend. */
void out_fault(struct out *o, const struct out_fault *f);
/* The records are over (END has run): what comes before the aggregations printed at exit. */
void out_end_records(struct out *o);
/* The last of the output (once; also when the trace ends on an error). */
void out_finish(struct out *o);
void out_close(struct out *o);

/* print()'s value v (of a field OUT_F_PRINT), to f (print.c). */
void out__print_value(FILE *f, const struct out_val *v);

/* printa(fmt, ...)'s text of one row of nents entries (text.c), to f. */
void out__text_printa_row(FILE *f, const struct out_printf *fmt,
			  const struct out_aggent *const *ents, size_t nents,
			  const struct out_namer *namer);

#endif /* UDT_OUTPUT_H */
