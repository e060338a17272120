/* SPDX-License-Identifier: MIT */
/* The consumer's private interfaces: enablings, the session with the target, records. */
#ifndef UDT_CONSUMER_INTERNAL_H
#define UDT_CONSUMER_INTERNAL_H

#include "consumer/consumer.h"
#include "runtime/abi.h"
#include "runtime/bytecode.h"

/* What one action of an ECB prints. */
enum cs_act_kind {
	CS_ACT_TRACE,              /* an integer, recorded */
	CS_ACT_TRACE_CONST,        /* a constant (integer or string), printed by the consumer */
	CS_ACT_EXIT,               /* the status, recorded */
	CS_ACT_TRACE_STR,          /* a string copied from the target, recorded */
	CS_ACT_PRINTF,             /* printf(): prints the pf_nvals actions after it */
};

struct cs_action {
	enum cs_act_kind kind;
	unsigned size;             /* display size of an integer: 1, 2, 4, 8 */
	bool is_signed;
	bool is_str;               /* a constant string */
	bool from_hdr;             /* trace(timestamp): the record header's, not recorded again */
	const char *cstr;
	int64_t cval;
	struct dl_difo difo;       /* the compiled value (recorded actions) */
	uint32_t off;              /* where it is in the record's data */
	bool pf_value;             /* a value of the printf() before it: not printed alone */
	struct cs_printf *pf;      /* CS_ACT_PRINTF: the format */
	size_t pf_nvals;
};

/* An enabling: one clause on one probe (or on BEGIN or END, run here). */
struct cs_ecb {
	uint32_t epid;
	struct cs_probe *probe;
	const struct dl_clause *clause;
	struct dl_difo pred;
	bool has_pred;
	struct cs_action *acts;
	size_t act_cnt, act_cap;
	uint32_t rec_size;
};

/* printf.c: a printf() format, parsed and checked when the script compiles */
enum cs_pfclass {
	CS_PF_SINT,                /* d i */
	CS_PF_UINT,                /* o u x X p: integers and pointers */
	CS_PF_CHAR,                /* c */
	CS_PF_STR,                 /* s S */
	CS_PF_TIME,                /* Y */
	CS_PF_WIDTH,               /* a '*' width or precision */
};

#define CS_PF_STAR (-2)            /* width or precision given by a value */

struct cs_pfconv {
	char *prefix;              /* the text before the conversion ("%%" made '%') */
	char conv;                 /* the conversion character; 0: only the text */
	enum cs_pfclass cls;
	char flags[8];
	int width, prec;           /* -1 none, CS_PF_STAR */
	char len[3];               /* hh h l ll j z t, or "" */
	char spec[40];             /* as written, for messages ("%-8d") */
};

struct cs_printf {
	struct cs_pfconv *v;
	size_t cnt;
	size_t nvals;              /* the values the format takes, '*' ones included */
};

/* What an argument of printf() is. */
enum cs_pfvalue { CS_PFV_INT, CS_PFV_PTR, CS_PFV_STR, CS_PFV_OTHER };

/* A value for printing: an integer of size bytes, or a string. */
struct cs_pfarg {
	uint64_t v;
	unsigned size;
	const char *s;
};

/* 0, or -1 with DTrace's message (no location) in *ret_err. */
int cs_printf_parse(const char *fmt, struct cs_printf *ret, char **ret_err);
/* Check the arguments' kinds (names: their types, for messages) against the format. */
int cs_printf_check(const struct cs_printf *f, const enum cs_pfvalue *vals,
		    const char *const *names, size_t nvals, char **ret_err);
void cs_printf_print(FILE *out, const struct cs_printf *f, const struct cs_pfarg *args,
		     size_t nargs);
void cs_printf_free(struct cs_printf *f);

/* clock.c: a (TSC, CLOCK_MONOTONIC) pair, and the calibration the runtime reads the TSC with */
struct cs_clock_pt {
	uint64_t tsc, ns;
	bool valid;                /* the TSC is usable and was read */
};

struct cs_clock_cal {
	uint64_t tsc_base, tsc_ns, tsc_mult; /* struct udt_control's fields; tsc_mult 0: none */
};

uint64_t cs__now_ns(void);
/* The first pair, if the TSC may be used; the calibration from it (waits until 10 ms after). */
void cs__clock_start(struct cs_clock_pt *a);
void cs__clock_finish(const struct cs_clock_pt *a, struct cs_clock_cal *cal);

/* A record read from a buffer, with where it came from. */
struct cs_rec {
	const struct udt_rec *r;
	int32_t tid;
};

struct cs_trace {
	struct dl_program *prog;
	struct cs_proc *proc;
	struct cs_opts o;
	FILE *out;
	struct cs_probes probes;
	struct cs_ecb *ecbs;       /* target ECBs first, then BEGIN's and END's */
	size_t ecb_cnt, ecb_cap, target_ecbs;

	/* the session */
	bool attached;
	struct cs_clock_pt clock_start; /* the first calibration pair, taken at open */
	uint64_t ctl;              /* address of udt__control in the target */
	uint64_t fire;             /* address of udt__fire */
	uint32_t session, area;
	uint64_t *sems, *disps;    /* what this session set, deduplicated */
	size_t sem_cnt, sem_cap, disp_cnt, disp_cap;
	bool target_gone;

	/* the shared buffers */
	uint8_t *shm;
	size_t shm_size;
	uint64_t *fill_pos;        /* fill: bytes already read of each buffer */
	bool *pending;             /* switch: a buffer whose old half could not be read yet */
	bool resize_reported;
	bool shm_failed;           /* the target could not make the buffers: said once */
	uint64_t last_switch;      /* when buffers were last switched (CLOCK_MONOTONIC ns) */

	/* output */
	bool heading;
	bool done;
	bool exited;
	int exit_status;
	uint64_t lost_reported;
	uint64_t lost_early;       /* the control block's count, as last read */
	struct cs_rec *recs;       /* this round's records */
	size_t rec_cnt, rec_cap;
};

/* enable.c */
void cs__detach(struct cs_trace *t);
void cs__heartbeat(struct cs_trace *t);

/* drain.c */
void cs__run_begin(struct cs_trace *t);

#endif /* UDT_CONSUMER_INTERNAL_H */
