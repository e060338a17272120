/* SPDX-License-Identifier: MIT */
/* The consumer's private interfaces: enablings, the session with the target, records. */
#ifndef UDT_CONSUMER_INTERNAL_H
#define UDT_CONSUMER_INTERNAL_H

#include "consumer/consumer.h"
#include "output/output.h"
#include "abi/abi.h"
#include "abi/bytecode.h"
#include "vm/vm.h"
#include "util/util.h"

/* What one action of an ECB prints. */
enum cs_act_kind {
	CS_ACT_TRACE,              /* an integer, recorded */
	CS_ACT_TRACE_CONST,        /* a constant (integer or string), printed by the consumer */
	CS_ACT_EXIT,               /* the status, recorded */
	CS_ACT_TRACE_STR,          /* a string copied from the target, recorded */
	CS_ACT_PRINTF,             /* printf(): prints the pf_nvals actions after it */
	CS_ACT_AGG,                /* @name[keys] = func(value): aggregates, records nothing */
	CS_ACT_STMT,               /* an expression for its effect (self->x = ...): records nothing */
	CS_ACT_PRINTA,             /* printa([format,] @a): pf is the format or NULL */
	CS_ACT_CLEAR,              /* clear(@a) */
	CS_ACT_TRUNC,              /* trunc(@a[, n]): n is the value action after it, if any */
	CS_ACT_NORMALIZE,          /* normalize(@a, n): n is the value action after it */
	CS_ACT_DENORMALIZE,        /* denormalize(@a) */
	CS_ACT_SPECULATE,          /* speculate(id): the record goes to speculation id (difo) */
	CS_ACT_COMMIT,             /* commit(id) */
	CS_ACT_DISCARD,            /* discard(id) */
	CS_ACT_TRACEMEM,           /* tracemem(addr, size[, dynsize]): size bytes; dynsize after */
	CS_ACT_RAISE,              /* raise(sig) (-w): in the target, as the fire ends */
	CS_ACT_SYSTEM,             /* system(format, ...) (-w): as printf, run by /bin/sh */
	CS_ACT_SETOPT,             /* setopt(name[, value]): the values after it */
	CS_ACT_USTACK,             /* ustack(n): nframes return addresses (stack.c) */
	CS_ACT_CHILL,              /* chill(ns) (-w): the firing thread spins ns nanoseconds */
};



/* Does action kind k record nothing (so that a clause of only such actions makes no record)? */
static inline bool cs_act_silent(enum cs_act_kind k)
{
	return k == CS_ACT_AGG || k == CS_ACT_STMT || k == CS_ACT_COMMIT || k == CS_ACT_DISCARD ||
	       k == CS_ACT_RAISE || k == CS_ACT_CHILL;
}

struct cs_aggact;

struct cs_action {
	enum cs_act_kind kind;
	unsigned size;             /* display size of an integer: 1, 2, 4, 8 */
	bool is_signed;
	bool is_str;               /* a constant string */
	bool from_hdr;             /* trace(timestamp): the record header's, not recorded again */
	bool is_float;             /* the bits of a float (size 4) or a double (size 8) */
	bool narrow;               /* (given) compile the value narrowed to its type: a key */
	bool is_print;             /* print(): printed by its type, print_type (print.c) */
	bool is_object;            /* CS_ACT_TRACEMEM of an object's bytes (print(), trace()),
				      whose DIFO gives its address */
	struct dl_qtype print_type;
	uint8_t sym;               /* enum out_addrfmt: an address (or a stack) to name when printed */
	int32_t field;             /* its field in the ECB's out_ecb, or -1 (cs__ecb_describe()) */
	uint32_t nframes;          /* CS_ACT_USTACK */
	const char *cstr;
	int64_t cval;
	const struct dl_node *expr; /* the D expression of a value (names a CTF field) */
	struct dl_difo difo;       /* the compiled value (recorded actions) */
	uint32_t off;              /* where it is in the record's data */
	bool pf_value;             /* a value of the action before it (printf, trunc...): not printed alone */
	struct out_printf *pf;      /* CS_ACT_PRINTF, CS_ACT_PRINTA: the format */
	size_t pf_nvals;           /* the values after it that are its own */
	struct cs_aggact *agg;     /* CS_ACT_AGG */
	struct out_aggvar *aggvar;  /* printa() and the other actions on an aggregation */
	struct out_aggvar **aggvars; /* printa() of several: all of them (aggvar is the first) */
	size_t naggvars;
};

/* An enabling: one clause on one probe (or on BEGIN or END, run here). */
struct cs_ecb {
	uint32_t epid;
	struct pb_probe *probe;
	const struct dl_clause *clause;
	struct dl_difo pred;
	bool has_pred;
	struct cs_action *acts;
	size_t act_cnt, act_cap;
	uint32_t rec_size;
	bool local;                /* run here (BEGIN, END, tick-n), not in the target */
	struct out_ecb *out;       /* its records' fields, as the output sees them (describe.c) */
};

/*
 * cs__ecb_describe() - e's fields for the output, once its actions are
 * compiled: each action that shows a value gets one (its field), in order.
 */
void cs__ecb_describe(struct cs_trace *t, struct cs_ecb *e);
/* The lead's ECBs made since the last call, declared to the output (before it starts, and
   before it finishes: a CTF trace's event classes). */
void cs__out_declare(struct cs_trace *t);
/* Where the output sees probe pr. */
struct out_probe cs__out_probe(const struct pb_probe *pr);

/* -- Aggregations (agg.c) ----------------------------------------------------------------- */

/*
 * One aggregating action of one ECB. The runtime knows it by aggid; its key
 * holds the components that are not constants (those are in keys[] here),
 * at their off, and it aggregates the value of val.
 */
struct cs_aggact {
	uint32_t aggid;
	struct out_aggvar *var;
	struct cs_action *keys;
	size_t nkeys;
	uint32_t key_size;
	struct cs_action val;
	bool has_val;
	struct cs_action incr;     /* a quantization's increment */
	bool has_incr;
};

struct cs_trace;
struct cs_aggstate;

/* Collect the aggregation variables of prog in source order, checking their functions. */
int cs__agg_declare(struct cs_trace *t, char **ret_err);
/* Compile the aggregating assignment x into an action of e. */
int cs__agg_compile(struct cs_trace *t, struct cs_ecb *e, const struct dl_node *x,
		    const struct dl_probe_ctx *ctx, char **ret_err);
/* Is fn an action on aggregations (printa, clear, trunc, normalize, denormalize)? */
bool cs__agg_is_op(const char *fn);
/* Compile such a call into actions of e (and the values it takes). */
int cs__agg_compile_op(struct cs_trace *t, struct cs_ecb *e, const struct dl_node *call,
		       const struct dl_probe_ctx *ctx, char **ret_err);
/* Run aggregating action a of a BEGIN or END clause here. -1 on a fault (vm says). */
int cs__agg_local(struct cs_trace *t, const struct cs_aggact *a, struct udt_vm_ctx *vm);
void cs__agg_free(struct cs_trace *t);

/* aggdata.c: take what the threads (and BEGIN and END) aggregated into the totals */
void cs__agg_snap(struct cs_trace *t, bool final);
/* The same for t's threads alone (a member whose process is gone: final). */
void cs__agg_snap_one(struct cs_trace *t, bool final);
void cs__agg_cur_free(struct cs_trace *t);
uint64_t cs__agg_last_snap(struct cs_trace *t);
/* The aggregations printa() did not print, to the output, as DTrace prints them at exit. */
void cs__agg_print_all(struct cs_trace *t);
/* printa(): the entries of var to the output, with format fmt (NULL: DTrace's default) */
void cs__agg_printa(struct cs_trace *t, struct out_aggvar *var, const struct out_printf *fmt);
/* printa() of n aggregations with the same keys: keys once, a value of each (fmt: %@ in turn) */
void cs__agg_printa_joined(struct cs_trace *t, struct out_aggvar *const *vars, size_t n,
			   const struct out_printf *fmt);
void cs__agg_clear(struct cs_trace *t, const struct out_aggvar *var);
/* trunc(): keep the `keep` largest entries (smallest if negative), none when all */
void cs__agg_trunc(struct cs_trace *t, const struct out_aggvar *var, bool all, int64_t keep);
void cs__agg_free_data(struct cs_trace *t);

/* -- tracemem(), raise(), stop(), chill(), system(), setopt() (actions.c) --------------- */

/* Is fn one of them? */
bool cs__act_is_more(const char *fn);
/* Compile such a call into actions of e (and the values they take). */
int cs__act_compile(struct cs_trace *t, struct cs_ecb *e, const struct dl_node *call,
		    const struct dl_probe_ctx *ctx, char **ret_err);
/* setopt(name, value) when its record is read; DTrace's message when it cannot be set. */
void cs__setopt(struct cs_trace *t, const struct cs_ecb *e, const char *name, const char *value);
/* Before anything runs: "Destructive actions not allowed" without -w. 0, or -1 with ret_err. */
int cs__act_check_destructive(struct cs_trace *t, char **ret_err);

/* -- Speculations (spec.c) ----------------------------------------------------------- */

struct udt_spectab;

/* Is fn speculate, commit or discard? */
bool cs__spec_is_action(const char *fn);
/* Compile such a call into an action of e. */
int cs__spec_compile(struct cs_trace *t, struct cs_ecb *e, const struct dl_node *call,
		     const struct dl_probe_ctx *ctx, char **ret_err);
/* DTrace's rules on where speculate(), commit() and the others may be in clause cl. */
int cs__spec_check_clause(struct cs_trace *t, const struct dl_clause *cl, char **ret_err);
/* The speculations BEGIN and END use: the target's once it has them, else dtrace's own. */
const struct udt_spectab *cs__spec_table(struct cs_trace *t);
/* The state of speculation i as BEGIN left it (for the enabling area). */
uint32_t cs__spec_begin_state(struct cs_trace *t, uint32_t i);
/*
 * commit() or discard() of id in table tab, from dtrace (BEGIN, END, or a
 * commit record of the target's): a commit's records are printed now, once
 * the target's threads are out of the speculation (waiting a little).
 * UDT_SPEC_BADID for an ID past the table.
 */
int cs__spec_end(struct cs_trace *t, const struct udt_spectab *tab, uint64_t id, bool commit);
/* A commit record (UDT_EPID_COMMIT) read from the target's buffers. */
void cs__spec_commit_record(struct cs_trace *t, const struct udt_commit *c);
/* Finish the speculations left busy; at the end (final) commits whose record was lost too. */
void cs__spec_clean(struct cs_trace *t, bool final);
/* Is a commit waiting for its record to be read (then buffers are switched at cleanrate)? */
bool cs__spec_pending(struct cs_trace *t);
/* Take both aggregation tables of buffer i, whose thread has exited, into the totals. */
void cs__agg_take_thread(struct cs_trace *t, uint32_t i);
/* DTrace's reports: speculative drops, failed speculations. */
void cs__spec_report(struct cs_trace *t);
void cs__spec_free(struct cs_trace *t);


/* The enabling area as the consumer lays it out (enable.c), the target's copy of it. */
struct cs_area {
	uint8_t *buf;              /* UDT_AREA_SZ bytes */
	size_t used;
	bool overflow;             /* something did not fit: nothing more is put */
};

/* A list of target addresses (semaphores, dispatch pointers), each once. */
struct cs_addrs {
	uint64_t *v;
	size_t cnt, cap;
};

/* Add x to l unless it is there; is it there? (enable.c) */
void cs__addrs_add(struct cs_addrs *l, uint64_t x);
bool cs__addrs_has(const struct cs_addrs *l, uint64_t x);

/* Where cs__area_put_ecbs() put a generation's ECBs and their hash. */
struct cs_ecbs_at {
	uint32_t ecb_off, ecb_cnt, hash_off, hash_bits;
};

/* A generation of the session's enablings: where it is and its undo lists (abi.h). */
struct cs_gen {
	uint32_t off;              /* its struct udt_area_gen; 0: generation 0 (the header) */
	uint32_t ecb_end;          /* the ECBs (t->ecbs) before it and its own: their count */
	uint32_t sem_off, sem_cnt; /* the semaphores it set */
	uint32_t disp_off, disp_cnt; /* the dispatch pointers */
};

/* A record read from a buffer, with where it came from. */
struct cs_rec {
	const struct udt_rec *r;
	int32_t tid;
};

struct cs_trace {
	struct dl_program *prog;
	struct pr_proc *proc;
	struct cs_opts o;
	FILE *out;
	struct pb_probes probes;
	const struct pb_probe *cur_probe; /* the probe a clause is being compiled for */
	struct pr_syms *syms;      /* the target's addresses named (stack.c) */
	struct out_namer namer;    /* the output's way to them (stack.c) */
	bool names_addrs;          /* the program records stacks or addresses */
	char execname[64];         /* the target's, for execname in its probes' clauses */
	/* by EPID - 1: at the start, the target's ECBs first, then BEGIN's and END's; then
	   those of probes that appear while the session runs (late.c) */
	struct cs_ecb *ecbs;
	size_t ecb_cnt, ecb_cap;

	/* the session */
	bool attached;
	struct udt_clock_pt clock_start; /* the first calibration pair, taken at open */
	uint64_t ctlblk;           /* address of udt__control in the target */
	uint32_t slot;             /* the session's slot in it (slots.c) */
	uint64_t ctl;              /* the slot's address (struct udt_control) */
	int lock_fd;               /* the target's attach lock while held (lock_depth > 0) */
	unsigned lock_depth;
	uint64_t fire;             /* address of udt__fire */
	uint32_t session, area;
	bool target_gone;
	int pidfd;                 /* the lead's: its process's pidfd (-1: none), for the wait */
	bool pidfd_seen;           /* it said the process exited (no more polled) */
	struct udt_futexfd *waker; /* the lead's: its memory's futex, for the wait (shm.c) */
	/* the enabling area as written into the target, and its generations: [0] is the
	   header's, the others appended while the session runs (late.c) */
	struct cs_area img;
	struct cs_gen *gens;
	size_t gen_cnt, gen_cap;
	struct cs_late *late;      /* following the target's loads and unloads (late.c) */
	bool zdefs_unmatched;      /* -Z: a description of the target's matched no probe */

	/* the shared buffers (shm.c): the target writes them, so the header is copied when
	   they are mapped, checked there, and read from the copy only */
	uint8_t *shm;
	size_t shm_size;
	struct udt_shm_hdr sh;     /* the header as mapped and checked */
	struct udt_dynhdr dyn_geo; /* the dynamic variable space's header, likewise */
	bool shm_bad;              /* the target corrupted them: said once, read no more */
	/* the buffers' segments mapped (seg[0]: shm), their layouts, their buffers */
	uint8_t *seg[UDT_SEG_MAX];
	struct udt_seg_layout seg_l[UDT_SEG_MAX];
	uint32_t seg_cnt;
	uint32_t tbuf_cap;
	bool seg_failed;           /* one could not be mapped: said once */
	uint64_t *fill_pos;        /* fill: bytes already read of each buffer */
	bool *pending;             /* switch: a buffer whose old half could not be read yet */
	bool resize_reported;
	bool shm_failed, prof_armed; /* the target could not make the buffers: said once; its
				      profile timers were armed (cs_trace_arm()) */
	uint64_t last_switch;      /* when buffers were last switched (CLOCK_MONOTONIC ns) */
	/* pacing (drain.c, pace()): the interval the last round chose for the next, when it
	   ran, and the fullest buffer's unread bytes it left */
	uint64_t pace_ns, pace_at, pace_unread;
	/* the lead's next round (cs_trace_wait()): when it is due, or now (woken for it); and
	   whether the last wake made one */
	uint64_t round_due;
	bool round_now, round_ran;

	/* the output (output/output.h): the lead's is the session's (cs__out()) */
	struct out output;
	bool done;
	bool exited;
	int exit_status;
	uint64_t lost_reported;    /* of the shared memory's lost (fires nested in a fire) */
	uint64_t lost_early;       /* the control block's count, as last read */
	uint64_t lost_early_reported;
	uint64_t lost_nobuf_reported;
	uint64_t lost_nomem_reported;
	uint64_t overwritten;      /* ring: records overwritten, counted as buffers are read */
	bool churning;             /* threads exited since: the next round soon, and switching */
	struct cs_rec *recs;       /* this round's records, in rec_copies */
	size_t rec_cnt, rec_cap;
	uint8_t **rec_copies;      /* the bytes they were copied out of the buffers into */
	size_t rec_copy_cnt, rec_copy_cap;
	/* -x temporal: the latest timestamp read by each recent round, and when (drain.c) */
	struct cs_tmark { uint64_t at, max_ts; } *tmarks;
	size_t tmark_cnt, tmark_cap;
	uint64_t max_ts;           /* the latest timestamp read so far */

	/* aggregations */
	struct out_aggvar **aggvars;
	size_t aggvar_cnt, aggvar_cap;
	struct cs_aggact **aggacts; /* by aggid - 1 */
	size_t aggact_cnt, aggact_cap;
	uint8_t *agg_local;        /* BEGIN's and END's table (o.aggsize bytes), or NULL */
	uint64_t *local_tvars;     /* BEGIN's and END's self-> variables */
	uint64_t *local_gvars;     /* the global variables as BEGIN and END see them */
	size_t local_ntvars, local_ngvars; /* (their lengths) */
	uint64_t local_rand[2];    /* BEGIN's and END's rand() state */
	struct cs_aggstate *aggst; /* the totals (aggdata.c) */
	bool agg_fresh;            /* snapped since the records being printed were read */

	bool destructive_used;     /* system(), raise(), stop(), chill(), copyout(): only with -w */
	uint64_t chill_mark, chilled; /* chill()'s budget in dtrace's own clauses (udt__chill()) */
	bool error_clauses;        /* the program has clauses for dtrace:::ERROR (drain.c) */

	/* speculations (spec.c) */
	bool spec_used;            /* the program speculates: the session has nspec buffers */
	struct cs_spec *spec;      /* dtrace's own speculations and the reports' counts */

	/* the tick-n probes, run here (profile.c) */
	struct cs_tick {
		const struct pb_probe *probe;
		uint64_t next;     /* CLOCK_MONOTONIC ns of its next fire */
	} *ticks;
	size_t tick_cnt;

	/* strings, scratch and dynamic variables (vars.c); NULL when the program has none */
	struct cs_vars *vars;

	/* the SystemTap sites the session patches (sites.c): their addresses, and where their
	   struct udt_site array is in the area */
	uint64_t *sites;
	size_t site_cnt;
	uint32_t site_off;
	uint32_t sites_tab;        /* their struct udt_sites (the newest table: late.c) */

	/*
	 * Several processes (group.c, docs/processes.md). The trace dtrace opens
	 * is the lead: it holds what a session has once (BEGIN, END, tick-n and
	 * ERROR run here, the output's heading, exit(), the aggregations'
	 * variables and totals) and its process, if -p or -c gave one. Every
	 * other process traced is a member: a trace of its own (its probes,
	 * ECBs, session, buffers) whose lead is the lead.
	 */
	struct cs_trace *lead;     /* a member's lead; NULL in the lead */
	struct cs_group *grp;      /* the lead's: its members, and how processes are found */
	struct pr_proc own_proc;   /* a member's process (proc points to it) */
	struct udt_clock_cal cal;   /* the lead's: the clock every session reads */
	bool cal_done;
	uint32_t next_probe_id;    /* the lead's: the ID of the next probe made, in any process */
	/* a fork child's ECBs and aggregating actions are first its parent's: shared with
	   fork_src (referenced, kept until no child refers to it), its own appended after */
	struct cs_trace *fork_src;
	unsigned refs;             /* fork children whose ECBs are this trace's */
	size_t ecb_borrowed, aggact_borrowed;
	bool aggvars_borrowed;     /* a member's aggregation variables are the lead's */
	bool gone;                 /* a member whose process exited or exec'd: read for the last time */
	bool said_fail;            /* a member whose failure to start is said (group.c) */
	bool fork_wait;            /* dtrace is told of its forks at once: UDT_CTL_FORKWAIT */
	uint64_t born_ns;          /* when the member was made; the lead's session armed */
	uint64_t slow_due;         /* when its heartbeat and checks are due next */
	uint64_t map_due;          /* when its memory is looked for next (once it is not young) */
	uint64_t gone_ns;          /* when it went */
	/* aggregation snapshots of this trace's threads' tables (aggdata.c) */
	struct cs_aggcur *aggcur;
};

/* The trace holding what the session has once (t itself, or a member's lead). */
static inline struct cs_trace *cs__lead(struct cs_trace *t)
{
	return t->lead ? t->lead : t;
}

/* The session's output (its lead's). */
static inline struct out *cs__out(struct cs_trace *t)
{
	return &cs__lead(t)->output;
}

/* stack.c: ustack() and the address functions; kernel-only functions refused */
bool cs__stack_is_func(const char *fn);
/* Compile call x if it is one of them: 1 (a filled in), 0 (not one), -1 with *ret_err. */
int cs__stack_compile(struct cs_trace *t, const struct dl_node *x, const struct dl_probe_ctx *ctx,
		      struct cs_action *a, char **ret_err);
/* The program names addresses: read the process's mappings now (at the attach). */
void cs__stack_start(struct cs_trace *t);
/* The text of stack or address action a of a record, or of key component a (a stack or an
   address) of an aggregation key, as dt_consume.c prints it (malloc'ed). */
char *cs__stack_key_text(struct cs_trace *t, const struct cs_action *a, const uint8_t *key);
/* Is v printed folded with -x aggfmt=folded (a stack key, an integer value)? */
bool out_agg_foldable(const struct out_aggvar *v);
/* An entry's keys folded into one line ("frame;frame;...", other keys first); malloc'ed. */
char *out_agg_fold(const struct out_aggvar *v, const char *const *keys, const uint64_t *ints);
/* The first node of clause cl that pred accepts, or NULL. */
const struct dl_node *cs__clause_find(const struct dl_clause *cl,
				      bool (*pred)(const struct dl_node *));

/* What names t's addresses for the output (stack.c). */
const struct out_namer *cs__namer(struct cs_trace *t);
/* The target's namer (stack.c), made when first needed; NULL without a process. */
struct pr_syms *cs__trace_syms(struct cs_trace *t);

/* profile.c: the session's profile probes as the runtime reads them; their count */
size_t cs__prof_table(const struct cs_trace *t, struct udt_prof *ret);
/* A clause for profile provider probe pr: no self-> (the chapter's rule). 0, or -1 with *ret_err. */
int cs__prof_check_clause(const struct dl_clause *cl, const struct pb_probe *pr, char **ret_err);
/* The tick-n probes run here: start their clocks (after BEGIN), run those due, and say
   how long until the next one is (UINT64_MAX: none). */
void cs__ticks_start(struct cs_trace *t);
void cs__ticks_run(struct cs_trace *t);
uint64_t cs__ticks_due_in(const struct cs_trace *t);
void cs__ticks_free(struct cs_trace *t);


/*
 * sites.c: the SystemTap sites of the probes from notes the session enables
 * (docs/notes.md). cs__sites_put() lays them out in a (their semaphores added
 * to sems, the sites it leaves out said on stderr) and gives the offset of
 * their struct udt_sites, 0 when there are none; cs__sites_arm() has the
 * runtime patch them (0, or -1 with *ret_err); cs__sites_detach() has them
 * restored at the end.
 */
uint32_t cs__sites_put(struct cs_trace *t, struct cs_area *a, struct cs_addrs *sems);

int cs__sites_arm(struct cs_trace *t, char **ret_err);
void cs__sites_detach(struct cs_trace *t);
/*
 * A library loaded while the session runs (late.c): cs__sites_put_late()
 * lays out in a a whole new table, the session's sites and those of the pid
 * and note probes of ECBs t->ecbs[idx[0..n)] (the notes' semaphores added to
 * sems), and gives its offset (0: none of them has a site); mod_from: the
 * first module mapped since the last table, whose addresses an older site
 * may still name (an object unloaded since).
 * cs__sites_adopt() makes the published table at tab the session's;
 * cs__sites_arm_late() then has the runtime patch them, and says which of
 * the sites not in old (sorted, nold) it left out.
 */
uint32_t cs__sites_put_late(struct cs_trace *t, struct cs_area *a, const size_t *idx, size_t n,
			    size_t mod_from, struct cs_addrs *sems);
void cs__sites_adopt(struct cs_trace *t, uint32_t tab);
void cs__sites_arm_late(struct cs_trace *t, const uint64_t *old, size_t nold);

/* vars.c */
struct udt_vm_mem;
struct udt_vars;
/* Make dtrace's own memory for the program's strings and dynamic variables, if it has any. */
int cs__vars_open(struct cs_trace *t, char **ret_err);
/* The session's global string variables, strsize and dynvarsize (0s without variables). */
void cs__vars_sizes(const struct cs_trace *t, uint64_t *ret_ngstrs, uint64_t *ret_strsize,
		    uint64_t *ret_dynvarsize);
void cs__vars_close(struct cs_trace *t);
/*
 * The memory a clause run here works in: BEGIN's own, or (live: END, tick-n)
 * the target's dynamic variables and global strings once its shared memory is mapped.
 */
struct udt_vm_mem *cs__vars_mem(struct cs_trace *t, bool live);
/* Run string action a of BEGIN or END into dst (a->size bytes). -1 on a fault (vm says). */
int cs__vars_str(const struct cs_action *a, struct udt_vm_ctx *vm, uint8_t *dst);
/*
 * What the area takes: the parameters, BEGIN's global strings and its live
 * dynamic variables (*ret_init, malloc'ed). False when the program has none.
 */
bool cs__vars_image(struct cs_trace *t, struct udt_vars *ret, const void **ret_gstrs,
		    size_t *ret_gstr_sz, void **ret_init, size_t *ret_init_sz);
/* Each round: the target's dynamic variable drops, and its cleaning (not when final). */
void cs__vars_work(struct cs_trace *t, bool final);
/* Are deleted elements of the target's dynamic variables waiting for the cleaner? */
bool cs__vars_dirty(const struct cs_trace *t);
/* The drops of BEGIN's and END's own dynamic variables. */
void cs__vars_report_local(struct cs_trace *t);

/* late.c: the probes of libraries loaded while the session runs (docs/runtime.md) */
/* After the session's start: what the enablings of later probes must fit (the layout). */
void cs__late_start(struct cs_trace *t);
/* Each round: if the target's registry changed, enable the probes that appeared. */
void cs__late_poll(struct cs_trace *t);
/* Does t look for the pid provider's probes in libraries loaded later (by their mappings)? */
bool cs__late_watching(const struct cs_trace *t);
void cs__late_free(struct cs_trace *t);

/* enable.c */
/* Append sz bytes to the area (8-aligned); their offset, or 0 (and overflow) when full. */
uint32_t cs__area_put(struct cs_area *a, const void *p, size_t sz);
/*
 * Lay out ECBs t->ecbs[idx[0..n)] (the target's) in a: their array, actions,
 * DIFOs and hash (in *ret); the semaphores and dispatch pointers they need
 * set are added to sems and disps.
 */
void cs__area_put_ecbs(struct cs_trace *t, struct cs_area *a, const size_t *idx, size_t n,
		       struct cs_addrs *sems, struct cs_addrs *disps, struct cs_ecbs_at *ret);
/* An undo list (one zero word when empty); its offset. */
uint32_t cs__area_put_list(struct cs_area *a, const struct cs_addrs *l);
/*
 * Set what generation g needs: each dispatch pointer of its list, then each
 * semaphore (+1), as the target holds the lists now (an object unloaded
 * meanwhile is struck out). 0, or a negative errno.
 */
int cs__gen_enable(struct cs_trace *t, const struct cs_gen *g);
/* The undo lists of generation g as the target holds them now (malloc'ed). 0 or -errno. */
int cs__gen_read_lists(struct cs_trace *t, const struct cs_gen *g, uint64_t **ret_sems,
		       uint64_t **ret_disps);
/* Undo that, with the lists as the target holds them (under the attach lock). */
void cs__gen_undo(struct cs_trace *t, const struct cs_gen *g);

/* slots.c: the sessions of a process, and its attach lock (docs/runtime.md, "Several sessions") */
/*
 * Run the runtime's sync in the target (pr_inject_sync(): its profile
 * provider's timers, its SystemTap sites), under the attach lock: two
 * injections at once would fight over ptrace. 0 or -errno with *ret_why.
 */
int cs__sync_runtime(struct cs_trace *t, char **ret_why);
/* A 32-bit word of the target at addr (a field of its control block); 0 when it cannot be read. */
static inline uint32_t cs__rd32(struct cs_trace *t, uint64_t addr)
{
	uint32_t v = 0;

	(void)pr_proc_read(t->proc, addr, &v, sizeof(v));
	return v;
}
/* The SystemTap sites the target's live sessions have (their areas' tables), into ret. */
void cs__live_sites(struct cs_trace *t, struct cs_addrs *ret);
/* pr_attach_lock() of the target for the session; nested calls only count. 0, or its -errno. */
int cs__lock(struct cs_trace *t, char **ret_err);
void cs__unlock(struct cs_trace *t);
/* Has the target a slot for a session (free, or its consumer gone)? 0, or -1 with *ret_err. */
int cs__slot_check(struct cs_trace *t, char **ret_err);
/*
 * Under the lock: take a slot (a free one, or one whose consumer is gone,
 * its session ended first): t->slot, t->ctl, t->session and t->area set.
 * 0, or -1 with *ret_err (the limit's message when every slot is live).
 */
int cs__slot_take(struct cs_trace *t, char **ret_err);
/* The addresses of the session's live byte, and of its enabling area, in the target. */
uint64_t cs__live_addr(const struct cs_trace *t);
uint64_t cs__area_addr(const struct cs_trace *t);
/*
 * Under the lock, once the session is no longer ACTIVE: one off each
 * semaphore (never below zero), and each dispatch pointer cleared unless
 * an ACTIVE session's lists hold it.
 */
void cs__undo_lists(struct cs_trace *t, const uint64_t *sems, size_t nsem, const uint64_t *disps,
		    size_t ndisp);
/* Free what ECB e holds. */
void cs__ecb_free(struct cs_ecb *e);
/* Compile clause cl for probe pr into an ECB (none when its predicate is false for pr). */
int cs__compile_probe(struct cs_trace *t, const struct dl_clause *cl, struct pb_probe *pr,
		      char **ret_err);
/* Compile expression x (of the call at `at`) into value action a, placed nowhere yet. */
int cs__compile_expr(struct cs_trace *t, const struct dl_node *x, const struct dl_node *at,
		     const struct dl_probe_ctx *ctx, struct cs_action *a, char **ret_err);
/* Argument i of call, an integer constant (lquantize()'s, ustack()'s...); -1 with a message when not. */
int cs__const_arg(struct cs_trace *t, const struct dl_node *call, size_t i,
		  const struct dl_probe_ctx *ctx, int64_t *ret, char **ret_err);
/* printf(), and system() (fn, kind): the format and the values it takes. */
int cs__compile_printf(struct cs_trace *t, struct cs_ecb *e, const struct dl_node *call,
		       const struct dl_probe_ctx *ctx, const char *fn, enum cs_act_kind kind,
		       char **ret_err);
/* Compile x into value action a of e, placed in its record. */
int cs__compile_value(struct cs_trace *t, struct cs_ecb *e, const struct dl_node *x,
		      const struct dl_node *call, const struct dl_probe_ctx *ctx,
		      struct cs_action *a, char **ret_err);
/* Place value action a at the end of *size bytes (of a record, or of a key). */
void cs__place(struct cs_action *a, uint32_t *size);
/* "file:line:col: error: msg" at node n (msg is freed). */
char *cs__at_err(const struct dl_node *n, char *msg);
/* Is x an aggregation (@a, @a[k]), which DTrace types as one: no value of an action? */
static inline bool cs__is_agg_node(const struct dl_node *x)
{
	return x->kind == DL_N_AGG || (x->kind == DL_N_INDEX && x->a->kind == DL_N_AGG);
}
/*
 * The error of a statement of an aggregation alone (@a; or @a[k];), as
 * DTrace says it: an aggregation not yet defined cannot be resolved, one
 * without its function has no effect.
 */
char *cs__agg_alone(struct cs_trace *t, const struct dl_node *x);
/*
 * Our compiler's DIFO d passes the runtime's verifier, and one that writes the
 * process (copyout()) marks t destructive and is refused in dtrace's own
 * clauses: 0, or -1 with the error at at.
 */
int cs__check_difo(struct cs_trace *t, const struct dl_difo *d, const struct dl_node *at,
		   char **ret_err);

/* -- print() (print.c) ------------------------------------------------------------------- */

bool cs__print_is(const char *fn);
/* print(expr): a value action of e (an object's bytes, or a trace()d value) printed by type. */
/*
 * trace() of a struct, union or array (not of chars) (argument #1 of call):
 * its bytes, printed as tracemem() prints them, as DTrace traces it (*ret_done);
 * anything else is left to trace()'s own compile (not *ret_done).
 */
int cs__trace_object(struct cs_trace *t, struct cs_ecb *e, const struct dl_node *call,
		     const struct dl_probe_ctx *ctx, bool *ret_done, char **ret_err);
int cs__print_compile(struct cs_trace *t, struct cs_ecb *e, const struct dl_node *call,
		      const struct dl_probe_ctx *ctx, char **ret_err);
/* print() action a of a record (data), to out. */
void cs__print_action(struct cs_trace *t, FILE *out, const struct cs_action *a,
		      const uint8_t *data);
/* size bytes of an object of type, as illumos's print() shows them. */
void cs__print_typed(struct cs_trace *t, FILE *out, struct dl_qtype type, const uint8_t *bytes,
		     uint64_t size);
void cs__detach(struct cs_trace *t);
void cs__heartbeat(struct cs_trace *t);
/* t->fork_wait changed: the session's flags written again */
void cs__flags_update(struct cs_trace *t);

/* drain.c */
void cs__run_begin(struct cs_trace *t);
/* Run the clauses of the local probe named name (a tick-n probe) here, as BEGIN's are. */
void cs__run_probe(struct cs_trace *t, const char *name);
/* The thread buffers of the session's shared memory: count, buffer i, its aggregation table h (NULL if none). */
/* shm.c: the shared memory, mapped, its header copied and checked (docs/runtime.md, "Trust") */
static inline bool cs__shm_usable(const struct cs_trace *t)
{
	return t->shm && !t->shm_bad;
}
/* The target broke its side (what, printf-style): said once; the memory is read no more. */
void cs__shm_corrupt(struct cs_trace *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* At the start of a round: is the live header still the copy? (Says so once if not.) */
bool cs__shm_check(struct cs_trace *t);
/*
 * Take m (size bytes, mmap'ed: unmapped by cs__shm_unmap()) as the session's
 * memory if its header is as this session asked. 0, or -1 (said; m unmapped).
 */
int cs__shm_adopt(struct cs_trace *t, void *m, uint64_t size);
void cs__shm_unmap(struct cs_trace *t);
/* Map the segments of buffers the target has made since (their threads' buffers). */
void cs__shm_segments(struct cs_trace *t);
/* Threads with a buffer (0 when the memory is not usable); buffer i (< that count). */
uint32_t cs__tbuf_count(struct cs_trace *t);
struct udt_tbuf *cs__tbuf(struct cs_trace *t, uint32_t i);
/* Half h of buffer i's data, of t->sh.bufsize bytes. */
uint8_t *cs__half(struct cs_trace *t, uint32_t i, uint32_t h);
/* Aggregation table h of buffer i, of t->sh.aggsize bytes, or NULL. */
uint8_t *cs__agg_table(struct cs_trace *t, uint32_t i, uint32_t h);
/* The dynamic variable space (t->sh.dyn_sz bytes, its geometry in t->dyn_geo), or NULL. */
struct udt_dynhdr *cs__shm_dyn(struct cs_trace *t);
/* Print len bytes of whole records (committed speculations): the target's ECBs' and ours. */
void cs__print_recs(struct cs_trace *t, const uint8_t *recs, uint64_t len);
/* The target's speculations in the shared memory, or NULL. */
const struct udt_spectab *cs__shm_spec(struct cs_trace *t);
/* Every running thread of the target (of the system, on older kernels) passes a full barrier. */
void cs__barrier_all(struct cs_trace *t);
/* Has t's process registered for the expedited barrier? */
bool cs__shm_expedited(const struct cs_trace *t);
/* Every running thread of the processes registered (expedited), or of the system, passes one. */
void cs__barrier(bool expedited);
/* Wait (briefly) until *busy is not h + 1: a producer is out of half or table h. */
bool cs__wait_not_busy(const uint32_t *busy, uint32_t h);

/* -- Several processes (group.c, procwatch.c; docs/processes.md) ------------------------ */


/* enable.c: a session in t's process (cs_trace_start() after BEGIN): 0, or -1 with *ret_err */
int cs__attach(struct cs_trace *t, char **ret_err);
/* The records' room (bufsize raised); whether t has ECBs to run in its process. 0 or -1. */
int cs__size_buffers(struct cs_trace *t, bool *ret_target, char **ret_err);
/* Its runtime checked, its symbols found, a slot free. 0, or -1 with *ret_err. */
int cs__session_check(struct cs_trace *t, char **ret_err);
/* The ECBs of the target first, then BEGIN's and END's, numbered (cs_trace_open()). */
void cs__order_ecbs(struct cs_trace *t);

/* drain.c: one round of t's process's session (slow: its heartbeat and checks too) */
enum cs_work cs__work_proc(struct cs_trace *t, bool slow);
/* The eventfd a wake of t's memory's futex makes readable (shm.c), or -1. */
int cs__waker_fd(const struct cs_trace *t);
/* How soon t's buffers are looked at again, as its last round found them filling, or its
   cleaner is due (drain.c). */
uint64_t cs__pace(const struct cs_trace *t);
/* t's process is done with (gone, or the end): detached, read for the last time, unmapped */
void cs__finish_proc(struct cs_trace *t);

/* group.c */
/* After the lead's start: its members' sessions, and the following of processes. */
int cs__group_start(struct cs_trace *lead, char **ret_err);
/*
 * No -p or -c: the processes running now whose probes the program's
 * descriptions match, each a member compiled (not started): 0, or -1 with
 * *ret_err (a description that matches nothing anywhere, without -Z).
 */
int cs__group_open_all(struct cs_trace *lead, char **ret_err);
/* Each round: the processes found, forked, exec'd and gone; each member's round. */
void cs__group_work(struct cs_trace *lead);
/* At the end: every member detached and read for the last time (before END). Did one corrupt
   what it shares with dtrace? */
bool cs__group_stop(struct cs_trace *lead);
void cs__group_free(struct cs_trace *lead);
/* The members (live and gone) of lead, for what works on all of them. */
size_t cs__group_members(const struct cs_trace *lead, struct cs_trace *const **ret);
/* The members' ECBs for clause cl (DTrace's "matched N probes"). */
size_t cs__group_matches(const struct cs_trace *lead, const struct dl_clause *cl);
/* Reserve n probe IDs (the lead numbers every process's probes): the first. */
uint32_t cs__probe_ids(struct cs_trace *t, uint32_t n);
/* How long the members let the loop sleep (ns), and the descriptor to wake it. */
uint64_t cs__group_due_in(const struct cs_trace *lead);

#endif /* UDT_CONSUMER_INTERNAL_H */
