/* SPDX-License-Identifier: MIT */
/*
 * Output: what the drain hands on, and the formats that write it
 * (docs/output.md).
 *
 * The drain (drain.c), the aggregations (aggdata.c) and the reports of drops
 * and faults decide what happened: a record of an enabling with its values,
 * a printa() or the aggregations printed at exit, a count of drops, a fault.
 * They hand each to the functions below, typed, and take no decision about
 * how it looks. Each format is one backend, a struct cs_out_ops: text as
 * dtrace(1) prints it (out_text.c); JSON and XML as FreeBSD's dtrace -x
 * oformat writes them (out_json.c); a CTF trace for babeltrace2 and Trace
 * Compass (out_ctf.c). Messages about drops and faults go to stderr as DTrace
 * words them whatever the format (output.c), and each backend may also write
 * them into its own output.
 *
 * A record reaches a backend as record_begin(), then value() for each action
 * that shows something, in the clause's order (a printa() among them calls
 * agg()), then record_end().
 */
#ifndef UDT_CONSUMER_OUTPUT_H
#define UDT_CONSUMER_OUTPUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct cs_trace;
struct cs_ecb;
struct cs_action;
struct cs_aggvar;
struct cs_printf;
struct cs_pfarg;

/* Where a record comes from: its header, and the thread that wrote it. */
struct cs_recinfo {
	uint64_t timestamp;        /* ns, the session's clock (docs/output.md, "Clocks") */
	uint32_t cpu;
	int32_t pid, tid;
};

/* What one action of a record shows. */
enum cs_ov_kind {
	CS_OV_INT,                 /* trace() of an integer: v, size */
	CS_OV_STR,                 /* trace() of a string: s; bytes and size, the recorded bytes
				      (NULL for a constant) */
	CS_OV_PRINTF,              /* printf(): pf and its nargs values at args */
	CS_OV_STACK,               /* ustack(): nframes return addresses at bytes (0 ends them) */
	CS_OV_ADDR,                /* uaddr(), usym(), ufunc(), umod(): v, named as act->sym says */
	CS_OV_MEM,                 /* tracemem(): size bytes at bytes */
	CS_OV_PRINT,               /* print(): act and the record's data (print.c) */
};

struct cs_outval {
	enum cs_ov_kind kind;
	const struct cs_action *act; /* the action (its type, its place in the record) */
	const uint8_t *data;       /* the record's data */
	uint64_t v;
	unsigned size;
	const char *s;
	const uint8_t *bytes;
	uint32_t nframes;
	const struct cs_printf *pf;
	const struct cs_pfarg *args;
	size_t nargs;
};

/* -- Aggregations -------------------------------------------------------------------------- */

/* A key component of an aggregation entry: an integer (cut to its display size) or a string. */
struct cs_aggkv {
	uint64_t v;
	const char *s;
};

/* An entry of an aggregation's totals (aggdata.c): its keys and its value. */
struct cs_aggent {
	const struct cs_aggvar *var;
	struct cs_aggkv *keys;
	int64_t *val;              /* the aggregating function's words (a distribution's buckets) */
	size_t vcnt;
	uint8_t *ck;               /* the canonical key (aggdata.c) */
	size_t cklen;
	uint64_t hash;
};

/*
 * What printa() prints, or the aggregations printed at exit (one variable at
 * a time): nrows rows of nvars entries, row r's entry of vars[j] at
 * ents[r * nvars + j], sorted as the options say; every entry of a row has
 * the same keys.
 */
struct cs_aggprint {
	struct cs_aggvar *const *vars;
	size_t nvars;
	const struct cs_printf *fmt; /* printa()'s format, or NULL */
	const struct cs_aggent *const *ents;
	size_t nrows;
	bool at_exit;              /* printed at exit, not by printa() */
};

/* The value of entry e as DTrace prints it (normalized): avg, stddev (unsigned), the others. */
uint64_t cs__agg_value(const struct cs_aggent *e);
/* Is var's function a distribution (quantize, lquantize, llquantize)? */
bool cs__agg_is_dist(const struct cs_aggvar *var);
/*
 * Distribution e's n buckets, the ones DTrace shows (first to last: one
 * around the used ones), and the lowest value of each (*ret_lo, malloc'ed,
 * indexed as e->val); for lquantize() and llquantize() the first bucket is
 * "< lo[0]" and the last ">= lo[n - 1]".
 */
void cs__agg_dist_range(const struct cs_aggent *e, int *ret_n, int *ret_first, int *ret_last,
			int64_t **ret_lo);

/* -- Drops and faults ------------------------------------------------------------------------- */

/* DTrace's kinds of drops (its DTRACEDROP_* numbers, which JSON gives as "kind"). */
enum cs_drop_kind {
	CS_DROP_PRINCIPAL = 0,     /* a thread's buffer was full */
	CS_DROP_AGG = 1,           /* a thread's aggregation table was full */
	CS_DROP_DYNVAR = 2,        /* the dynamic variable space was full */
	CS_DROP_DYNVAR_RINSE = 3,  /* ... with non-empty rinsing list */
	CS_DROP_DYNVAR_DIRTY = 4,  /* ... with non-empty dirty list */
	CS_DROP_SPEC = 5,          /* a speculative buffer was full */
	CS_DROP_SPEC_BUSY = 6,     /* speculate() found its buffers busy */
	CS_DROP_SPEC_UNAVAIL = 7,  /* speculation() found none free */
	CS_DROP_LOST = 100,        /* records the target could not record (ours: no buffer yet) */
};
#define CS_OUT_NDROPS 9            /* the kinds counted (CS_DROP_LOST in the last slot) */

/* A count of drops: the kind, the thread (0: none), how many since the last report. */
struct cs_drop {
	enum cs_drop_kind kind;
	int32_t tid;
	uint64_t count;
	uint64_t total;            /* of this kind over the session */
	const char *msg;           /* DTrace's message, without "dtrace: " and the newline */
};

/* A fault in an enabling: DTrace's "error on enabled probe ID ...". */
struct cs_fault {
	const struct cs_ecb *ecb;
	uint32_t action;           /* 0: the predicate */
	uint32_t fault;            /* UDT_FAULT_* */
	uint32_t insn;
	uint64_t addr;
	struct cs_recinfo where;
	const char *msg;           /* the message, without "dtrace: " and the newline */
};

/* -- The backends --------------------------------------------------------------------------- */

struct cs_out_ops {
	/* the backend's state (t->out_priv) for format form ("json", "xml"...); 0, or -1
	   with *ret_err */
	int (*open)(struct cs_trace *t, const char *form, bool pretty, char **ret_err);
	/* the trace starts (before BEGIN) and ends (after END; the aggregations printed at
	   exit come between end_records and finish); finish may write the last of it */
	void (*start)(struct cs_trace *t);
	void (*end_records)(struct cs_trace *t);
	void (*finish)(struct cs_trace *t);
	void (*record_begin)(struct cs_trace *t, const struct cs_ecb *e, const struct cs_recinfo *ri);
	void (*value)(struct cs_trace *t, const struct cs_outval *v);
	void (*record_end)(struct cs_trace *t);
	void (*agg)(struct cs_trace *t, const struct cs_aggprint *ap);
	/* optional: the message is on stderr already */
	void (*drop)(struct cs_trace *t, const struct cs_drop *d);
	void (*fault)(struct cs_trace *t, const struct cs_fault *f);
	void (*free)(struct cs_trace *t);
};

extern const struct cs_out_ops cs__out_text;
extern const struct cs_out_ops cs__out_json;
extern const struct cs_out_ops cs__out_ctf;

/* printa(fmt, ...)'s text of one row of nents entries (out_text.c), to out. */
void cs__text_printa_row(struct cs_trace *t, FILE *out, const struct cs_printf *fmt,
			 const struct cs_aggent *const *ents, size_t nents);

/* The session's backend (o.oformat). 0, or -1 with *ret_err. */
int cs__out_open(struct cs_trace *t, char **ret_err);
void cs__out_start(struct cs_trace *t);
void cs__out_record_begin(struct cs_trace *t, const struct cs_ecb *e, const struct cs_recinfo *ri);
void cs__out_value(struct cs_trace *t, const struct cs_outval *v);
void cs__out_record_end(struct cs_trace *t);
void cs__out_agg(struct cs_trace *t, const struct cs_aggprint *ap);
/* count drops of kind on thread tid (0: none): said on stderr, handed to the backend */
void cs__out_drop(struct cs_trace *t, enum cs_drop_kind kind, int32_t tid, uint64_t count);
/* Say count records of thread tid (0: of none) not recorded, and why: "N records WHAT". */
void cs__out_lost(struct cs_trace *t, int32_t tid, uint64_t count, const char *what);
void cs__out_fault(struct cs_trace *t, const struct cs_fault *f);
/* The records are over (END has run): what comes before the aggregations printed at exit. */
void cs__out_end_records(struct cs_trace *t);
/* The last of the output (once; also when the trace ends on an error). */
void cs__out_finish(struct cs_trace *t);
void cs__out_close(struct cs_trace *t);

#endif /* UDT_CONSUMER_OUTPUT_H */
