/* SPDX-License-Identifier: MIT */
/*
 * consumer: the session, what the dtrace command traces with. cmd/dtrace
 * owns the command line and the main loop; this room owns the options, the
 * enablings compiled from a program's clauses and laid out in the target,
 * the attach protocol and the slots (docs/runtime.md), the shared memory and
 * its draining, the aggregations' totals, speculations, variables, BEGIN,
 * END and tick-n run here, the processes of a session and the libraries they
 * load later. It uses probes/ (which probes there are), output/ (how
 * records look), proc/ (the processes), vm/, dlang/, abi/ and util/, and
 * never includes cmd/ (docs/layout.md).
 */
#ifndef UDT_CONSUMER_H
#define UDT_CONSUMER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "dlang/dlang.h"
#include "output/output.h"
#include "probes/probes.h"
#include "proc/proc.h"

/* -- Options (options.c) ---------------------------------------------------------- */

struct cs_opts {
	struct out_opts out;        /* how things look (output/output.h; docs/output.md) */
	uint64_t bufsize;          /* bytes per buffer half, per thread (bufsize, -b) */
	uint64_t switchrate_ns;    /* how often buffers are switched and read */
	uint64_t deadman_ns;       /* how long the target waits for a silent consumer */
	uint32_t policy;           /* enum udt_policy */
	bool bufresize_manual;     /* bufresize=manual: fail instead of shrinking */
	bool temporal;             /* merge the threads' records in timestamp order */
	bool zdefs;                /* -Z: descriptions matching no probe are not errors */
	bool destructive;          /* -w */
	uint32_t tbuf_max;         /* threads with a buffer, at most (maxthreads) */
	uint64_t strsize;
	uint64_t aggsize;          /* bytes of each of a thread's two aggregation tables */
	uint64_t aggrate_ns;       /* how often the threads' tables are taken */
	bool aggsortkey;           /* aggregations print sorted by key, then value */
	bool aggsortrev;           /* ... in reverse */
	uint32_t aggsortkeypos;    /* the key component sorted by first */
	uint32_t aggsortpos;       /* the aggregation of a printa() of several sorted by first */
	bool defaultargs;          /* unset macro arguments are 0 and "", unused ones allowed */
	bool empty;                /* an empty program is not an error */
	bool errtags;              /* compile errors start with DTrace's tag ("[D_SYNTAX] ") */
	uint32_t nspec;            /* speculative buffers (nspec) */
	uint64_t specsize;         /* bytes of each (specsize) */
	uint64_t cleanrate_ns;     /* how often busy speculations are finished and deleted
				      dynamic variables cleaned (cleanrate) */
	uint64_t dynvarsize;       /* bytes of the dynamic variable space (associative arrays) */
	uint64_t scratchsize;      /* bytes of each thread's scratch space (subroutines' results) */
	uint32_t prof_clock;       /* profclock: enum cs_profclock */
	uint32_t ustackframes;     /* ustack()'s frames when not given (ustackframes) */
	bool argref;               /* macro arguments no clause uses are not an error */
	uint32_t maxframes;        /* the most frames any ustack() records */
	uint32_t version;          /* -x version, encoded as DTrace's (major << 24 | minor << 12
				      | micro); 0: not set */
	bool compile_only;         /* -e: compiled, never enabled (so -w is not needed) */
	bool note_traps;           /* notesites=trap: SystemTap sites trapped, never jumped */
	bool pid_traps;            /* pidsites=trap: the pid provider's sites likewise */
	bool every_process;        /* no -p or -c: the descriptions are matched in every process
				      dtrace may trace, running or started later (docs/processes.md) */
	uint32_t maxprocs;         /* processes followed at most, besides -p's or -c's (maxprocs) */
	enum pr_watch_how procwatch; /* how processes are found (docs/processes.md) */
	bool nofollowfork;         /* a traced process's fork children leave the session */
	bool cmdstatus;            /* exit with -c's command's status (cmdstatus) */
};

/* How profile-n's samples are timed (profclock; docs/profile.md). */
enum cs_profclock {
	CS_PROFCLOCK_AUTO,         /* the tick's timers, perf events under 1 ms */
	CS_PROFCLOCK_TIMER,        /* CPU-time timers (the kernel's tick) */
	CS_PROFCLOCK_PERF,         /* perf event clocks (hrtimers) */
};

void cs_opts_init(struct cs_opts *o);

/*
 * cs_opt_set() - apply one option, "-x name=value" or "#pragma D option"
 * (value NULL when none is given): sizes take k, m, g, t suffixes; rates
 * and intervals take nsec ns usec us msec ms sec s min m hour h day d hz (a
 * bare number is a frequency for switchrate, as in DTrace).
 * Return: NULL, or why it cannot be set, in DTrace's words ("Invalid option
 * name", "Invalid value for specified option", ...) for the caller's
 * "failed to set -x NAME: why".
 */
const char *cs_opt_set(struct cs_opts *o, const char *name, const char *value);


/* -- Every process's probes (group.c) -------------------------------------------- */


/* -- Tracing (trace.c) ---------------------------------------------------------- */

struct cs_trace;

/* Results of cs_trace_work(). */
enum cs_work {
	CS_WORK_MORE,              /* call again after the next interval */
	CS_WORK_DONE,              /* exit() was traced, a fill buffer filled, or the target ended */
	CS_WORK_ERROR,             /* a fatal error was printed */
};

/*
 * cs_trace_open() - compile the clauses of prog for the probes of proc
 * (which may be NULL when the program only has BEGIN/END clauses).
 * Return: 0, or -1 with *ret_err ("dtrace: ..." style text, malloc'ed).
 */
int cs_trace_open(struct cs_trace **ret, struct dl_program *prog, struct pr_proc *proc,
		  const struct cs_opts *o, FILE *out, char **ret_err);

/* Attach to the target (if any), enable everything, run BEGIN. 0, or -1 with *ret_err. */
int cs_trace_start(struct cs_trace *t, char **ret_err);

/* The probes enabled for clause cl (one ECB each): DTrace's "matched N probes". */
size_t cs_trace_clause_matches(const struct cs_trace *t, const struct dl_clause *cl);

/*
 * cs_trace_arm() - make sure the target's runtime has armed the timers of the
 * session's profile and tick probes (a -c command did at its handshake; a
 * -p process gets a brief ptrace injection). Return: 0, or -1 with *ret_err.
 */
int cs_trace_arm(struct cs_trace *t, char **ret_err);

/*
 * cs_trace_follow() - fd (a SOCK_SEQPACKET socket, SO_PASSCRED set; ours to
 * close) is where the new images of -c's command's descendants announce
 * themselves (runtime/session.c, sync_with_consumer()): each is looked at as
 * it announces, and traced from its start if it matches (docs/processes.md).
 */
void cs_trace_follow(struct cs_trace *t, int fd);

/* Map the session's buffers if the target has made them. 0, or -1 after a message. */
int cs_trace_map(struct cs_trace *t);

/* One round: heartbeat, switch and read buffers, print. */
enum cs_work cs_trace_work(struct cs_trace *t);

/*
 * The target has gone away (exited, or exec'd): print what its buffers hold
 * (before dtrace says it has gone; a ring prints at the end).
 */
void cs_trace_target_gone(struct cs_trace *t);

/* Detach, read the last records, run END, report drops. 0, or -1 after printing why. */
int cs_trace_stop(struct cs_trace *t);

/* Whether exit() was traced, and the status it gave. */
bool cs_trace_exited(const struct cs_trace *t);
int cs_trace_exit_status(const struct cs_trace *t);

/* The interval between calls to cs_trace_work(), in ns. */
uint64_t cs_trace_interval(const struct cs_trace *t);

/* Wait for the next round: the interval, or a process event (a fork followed at once). */
void cs_trace_wait(struct cs_trace *t);

void cs_trace_close(struct cs_trace *t);

#endif /* UDT_CONSUMER_H */
