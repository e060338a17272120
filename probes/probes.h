/* SPDX-License-Identifier: MIT */
/*
 * probes: the probes dtrace knows. It owns them as DTrace names them
 * (provider:module:function:name, and an ID each): the dtrace provider's
 * BEGIN, END and ERROR; the probes of a process's probe tables, SDT(9)
 * providers and SystemTap notes, with the types of their arguments
 * (args[]); the profile, pid and plockstat providers', made on demand
 * from a description (profile.c, pid.c, libc.c); probe descriptions
 * and what they match; and dtrace -l's listing of them.
 *
 * A probe says where it is (its module, table, semaphore or sites) for the
 * consumer, which enables it; nothing here enables anything, or knows of a
 * session. It includes proc/ (the process and its objects), dlang/ (the
 * argument types), abi/, util/ and the system's: never consumer/ or output/.
 */
#ifndef UDT_PROBES_H
#define UDT_PROBES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "dlang/dlang.h"
#include "abi/abi.h"
#include "proc/proc.h"

/* One probe as DTrace shows it: a provider's probe at one function. */
struct pb_probe {
	uint32_t id;
	char *prov;                /* "http1234", or "dtrace" */
	const char *mod;           /* the module's name, "" for dtrace */
	const char *func;          /* "" when the table names no function */
	char *name;                /* "request-start" */
	struct pr_module *module;  /* NULL for dtrace:::BEGIN/END/ERROR */
	const struct pr_ptable *pt;
	uint32_t index;            /* in the table */
	uint64_t sem;              /* semaphore address in the target */
	uint64_t dispatch;         /* address of the object's udt__dispatch */
	uint64_t pc_lo, pc_hi;     /* the function's extent, when the probe has several */
	struct dl_probe *dprobe;   /* types for args[] (built from the table), or NULL */
	uint32_t prof_kind;        /* a profile provider probe: enum udt_prof_kind; 0 not one */
	uint32_t prof_index;       /* its index in the session's table (sem is its key) */
	uint64_t prof_ns;          /* its interval */
	/* a probe from SystemTap notes (notes.c): its sites, in its module's notes; sem is
	   then the first site's address, its key (no semaphore of ours identifies it) */
	struct pr_note *notes;
	uint32_t note_cnt;
	/* a pid provider probe (pid.c; docs/pid.md): its kind (0: not one), its function, and
	   its sites there; sem is its UDT_PID_KEY() */
	uint8_t pid_kind;          /* PB_PID_ENTRY, PB_PID_RETURN, PB_PID_OFFSET */
	bool pid_exe;              /* its module is the executable (a.out) */
	uint64_t fn_lo, fn_hi;     /* its function, in the target */
	const struct pr_sym *fn_syms; /* that function's symbols, in its module's (aliases) */
	size_t fn_nsyms;
	uint32_t *pid_offs;        /* its sites: offsets in the function (malloc'ed) */
	uint32_t pid_cnt;
	const char *pid_why;       /* with no site: why (a return probe where illumos puts none) */
	/* a probe of a provider made of the C library's functions (PB_PID_PART: libc.c; the
	   plockstat and proc providers), its sites (malloc'ed), in its function and those it
	   jumps on to; sem is its UDT_LOCK_KEY() or UDT_PROC_KEY() */
	struct pb_part_site *part_sites;
	uint32_t part_cnt;
};

enum { PB_PID_ENTRY = 1, PB_PID_RETURN, PB_PID_OFFSET, PB_PID_PART };

/* A site of such a probe: a pid provider site with a part in what the runtime follows. */
struct pb_part_site {
	uint64_t addr;
	uint64_t part;             /* UDT_PART() */
	uint64_t fn_lo, fn_hi;     /* the function it is in (decoded for its plan) */
	bool ret;                  /* a way out of its function (planned as a return's) */
	bool jump_only;            /* never a trap: it may run with SIGTRAP blocked or at its
				      default (UDT_SITE_F_NO_TRAP) */
};

/* The dtrace provider's probes: the first three of every list. */
enum { PB_PROBE_BEGIN = 1, PB_PROBE_END, PB_PROBE_ERROR };

struct pb_probes {
	struct pb_probe *v;
	size_t cnt;
	struct dl_program *types;  /* owns the dl_probe types (unless borrowed_types) */
	bool borrowed_types;
	uint32_t id_base;          /* the probes are numbered from id_base + 1 */
};


/* Every probe of the process (and dtrace:::BEGIN/END/ERROR); proc may be NULL. */
int pb_probes_load(struct pb_probes *ps, struct pr_proc *proc);
/*
 * pb_probes_load_at() - the same, the process's probes numbered from
 * first_id (the dtrace provider's keep 1 to 3), without making proc the
 * $target of probe descriptions: another process of the session's.
 */
int pb_probes_load_at(struct pb_probes *ps, struct pr_proc *proc, uint32_t first_id);
void pb_probes_free(struct pb_probes *ps);

/*
 * pb_probes_add_new() - the probes of proc's tables that are live and
 * registered and have none made yet (a library loaded since pb_probes_load():
 * pr_proc_sync()), into ps, numbered from first_id, their argument types
 * made in types (owned by the caller, which must outlive ps).
 * Return: the number of probes made.
 */
size_t pb_probes_add_new(struct pb_probes *ps, struct pr_proc *proc, struct dl_program *types,
			 uint32_t first_id);

/*
 * pb_probes_add_notes_late() - the probes of the SystemTap notes of proc's
 * modules from index mod_from on (mapped since: a dlopen()), those without
 * tables of ours, into ps after what it has (pb_probes_add_new()'s batch).
 * Return: the number of probes made.
 */
size_t pb_probes_add_notes_late(struct pb_probes *ps, struct pr_proc *proc, size_t mod_from);

/*
 * pb_probes_add_profile() - (profile.c) the profile provider creates its probes on
 * demand (docs/profile.md): if desc names profile-n or tick-n (no glob),
 * add that probe to ps unless it is there; a glob adds DTrace's default
 * probes it matches (the profile-n ones only if samples: there is a
 * process to sample, or a listing).
 * Return: 1 (desc names a probe, which is in ps), 0 (it names none), or -1
 * with *ret_err (malloc'ed): an interval under 200 microseconds, or not one.
 */
int pb_probes_add_profile(struct pb_probes *ps, const char *desc, bool samples, char **ret_err);


/* The profile and tick probes enabled in proc's live session (for dtrace -l -p). */
void pb_probes_add_live(struct pb_probes *ps, struct pr_proc *proc);

/* The process $target names in probe descriptions (pb_probes_load() sets it). */
void pb_probes_set_target(int pid);

/*
 * Does probe description desc ("prov:mod:func:name", globs, $target) match
 * pr? A description that is a number is a probe ID, as in DTrace (dtrace
 * -i 3, and -n 3: no probe's name is a number).
 */
bool pb_desc_match(const char *desc, const struct pb_probe *pr);
/* What a probe description names: probes that run where? */
enum pb_desc_kind {
	PB_DESC_DTRACE,           /* dtrace:::BEGIN, END, ERROR: run in dtrace */
	PB_DESC_TICK,             /* tick-n: fires in dtrace */
	PB_DESC_PROFILE,          /* profile-n: samples a process */
	PB_DESC_PROC,             /* a process's probes (any other) */
	PB_DESC_ID,               /* a probe ID: of -p's or -c's process, or dtrace's (the
				      processes found without either are numbered as found) */
	PB_DESC_PID,              /* the pid provider's (pid<PID>, pid$target): made on demand in
				      -p's or -c's process */
};
enum pb_desc_kind pb_desc_kind(const char *desc);
/* Could desc match a probe of provider prov ("http1234"): its provider field matches it? */
bool pb_desc_match_prov(const char *desc, const char *prov);
/*
 * The provider desc names when it is one of DTrace's kernel providers
 * (syscall, fbt, sched, io, proc, ...: static), which a user-space DTrace
 * does not have; else NULL.
 */
const char *pb_desc_kernel_provider(const char *desc);
/*
 * What a language runtime needs before probe pr of its fires (Debian's CPython,
 * Ruby, PHP and JVM fire some of their probes only when asked: docs/notes.md),
 * or NULL: static text.
 */
const char *pb_runtime_hint(const struct pb_probe *pr);
/* DTrace's words for a desc that matches no probe, and why where it knows (malloc'ed). */
char *pb_desc_nomatch(const char *desc);
/* Is desc a probe ID (digits only)? Its value in *ret_id (0 when too large: none has it). */
bool pb_desc_id(const char *desc, uint32_t *ret_id);

/*
 * pb_list() - "dtrace -l": the probes matching any of descs (all when
 * desc_cnt is 0), in DTrace's format; verbose adds stability and argument
 * types. Return: the number listed.
 */
size_t pb_list(const struct pb_probes *ps, const char *const *descs, size_t desc_cnt,
	       bool verbose, FILE *out);

/*
 * pb_probes_add_pid() - (pid.c) the pid provider makes its probes on demand
 * (docs/pid.md): if desc's provider is pid<PID> (pid$target), proc's, add
 * the probes desc names in proc to ps, those not there yet; and so do the
 * providers made on its machinery of the C library's functions (libc.c:
 * plockstat<PID>, docs/plockstat.md; proc, docs/proc.md).
 * Return: how many probes desc names (0: none, or another provider's), or
 * -1 with *ret_err (malloc'ed, "invalid probe specifier DESC: ...", in
 * dt_pid.c's words: dlang's errtags know them).
 */
int pb_probes_add_pid(struct pb_probes *ps, struct pr_proc *proc, const char *desc,
		      char **ret_err);
/*
 * pb_probes_add_pid_late() - the same in the modules of proc from index
 * mod_from on (those mapped since: a library loaded while the session runs),
 * none of its errors for a module or function that is not there.
 */
int pb_probes_add_pid_late(struct pb_probes *ps, struct pr_proc *proc, const char *desc,
			   size_t mod_from, char **ret_err);
/* Is desc a description of the pid provider of process pid (pid<pid>, $target expanded)? */
bool pb_desc_pid_of(const char *desc, int pid);

/*
 * pb_pid_sites() - (pid.c) the sites of the pid probes prs[0..n) (each of
 * a probe's ECBs may list it), one for each instruction, planned as
 * docs/pid.md says ("Placing and removing a probe") and appended to *v
 * (*cnt of *cap, UDT_SITES_MAX at most): each function's instructions
 * decoded once; a jump where sound (traps only when traps), taking the
 * later sites in its bytes along (they fire from its trampoline: joined), or
 * stretched to take the next one that would be trapped alone (a short
 * function's entry and ret); never a note site's bytes (notes: their
 * addresses, sorted, nnotes); shstk: the process has shadow stacks (no
 * call is moved). Those left out are said (pb_site_left_out()).
 */
void pb_pid_sites(const struct pb_probe *const *prs, size_t n, const uint64_t *notes,
		  size_t nnotes, bool shstk, bool traps, struct udt_site **v, size_t *cnt,
		  size_t *cap);
/* Does probe pr have a site at addr (a note's, the pid provider's, a C library provider's)? */
bool pb_probe_has_site(const struct pb_probe *pr, uint64_t addr);
/* Say on stderr why site s of probe pr is not patched (its udt_site.status), if it is not. */
void pb_site_status_say(const struct pb_probe *pr, const struct udt_site *s);
/* Say on stderr that the site at pc of probe pr is left out, and why (printf's fmt). */
__attribute__((format(printf, 3, 4))) void pb_site_left_out(const struct pb_probe *pr, uint64_t pc,
							    const char *fmt, ...);

/* Do probe pr's clauses run in dtrace (BEGIN, END, ERROR, tick-n), not in the target? */
static inline bool pb_runs_here(const struct pb_probe *pr)
{
	return !pr->module && pr->prof_kind != UDT_PROF_PROFILE;
}

/*
 * pb_probes_move() - append from's probes of a process (all but the dtrace
 * provider's three) to ps, with their IDs; their argument types stay in
 * from, which is freed after ps.
 */
void pb_probes_move(struct pb_probes *ps, struct pb_probes *from);

/* The four fields of desc, $target expanded (probes.c). false: not a description of four. */
bool pb__desc_fields(const char *desc, char ret[4][512]);
/* dtrace -l -v: pid probe pr's sites, and how each would be placed (pid.c). */
void pb__pid_list_sites(const struct pb_probe *pr, FILE *out);
/* Does description fields f match pid probe pr (pid.c: module and function names as DTrace's)? */
bool pb__pid_match(const char *const f[4], const struct pb_probe *pr);
/* Does module field f name mod (pid.c: illumos's libproc names), a function field f its syms? */
bool pb__mod_match(const char *f, const struct pr_module *mod, bool is_exe);
bool pb__func_match(const char *f, const struct pr_sym *syms, size_t n, const char **ret_name);
/*
 * pb__libc_add() - (libc.c) the probes description fields f (desc's) name in
 * proc's modules from mod_from on, if its provider is one made of the C
 * library's functions (plockstat<PID>, proc: pb__libc_provider()).
 * Return: how many it names, or -1 with *ret_err (malloc'ed).
 */
int pb__libc_add(struct pb_probes *ps, struct pr_proc *proc, const char f[4][512],
		 const char *desc, size_t mod_from, char **ret_err);
/* The provider ("plockstat", "proc") of provider name prov ("plockstat123"), or NULL. */
const char *pb__libc_provider(const char *prov);
/* dtrace -l -v: such a probe's sites and each's part (libc.c). */
void pb__part_list_sites(const struct pb_probe *pr, FILE *out);

/*
 * Which processes may have the probes descriptions name, from the files they
 * map (files.c): each file's providers read once, kept in a struct
 * pb_files (zeroed to start, pb_files_free() at the end).
 */
struct pb_file;
struct pb_files {
	struct pb_file *v;
	size_t cnt, cap;
};
enum pb_fmatch {
	PB_FM_NONE,
	PB_FM_ANY,                 /* a file's providers are its runtime's to name: it may */
	PB_FM_NAMED,               /* one of a file's providers, by name */
};
/*
 * pb_files_proc() - how one of descs (n) may match a probe of process pid,
 * by the files it maps (*ret_match: the surest), and which files they are
 * (*ret_sig: a hash of their devices and inodes). 0, or -errno (-EACCES,
 * -EPERM: not ours to inspect; -ESRCH: gone).
 */
int pb_files_proc(struct pb_files *fs, const char *const *descs, size_t n, pid_t pid,
		  enum pb_fmatch *ret_match, uint64_t *ret_sig);
/* The same for the file at path, as process pid would map it. */
enum pb_fmatch pb_files_path(struct pb_files *fs, const char *const *descs, size_t n,
			     const char *path, pid_t pid);
void pb_files_free(struct pb_files *fs);

/*
 * pb_every_probes() - for dtrace -l without -p or -c: add to ps (made by
 * pb_probes_load(ps, NULL)) the probes of every process dtrace may inspect
 * whose files name a provider one of descs may match (descriptions of
 * processes' probes: pb_desc_kind() PB_DESC_PROC), each process's numbered
 * after the last's, as a session numbers them (docs/processes.md). The
 * processes are read, not changed: no runtime is loaded into them, so their
 * SDT(9) and dynamic providers are there only where a runtime registered them.
 * Return: what holds the processes and the probes' argument types, for
 * pb_every_free() once ps is freed.
 */
struct pb_every;
struct pb_every *pb_every_probes(struct pb_probes *ps, const char *const *descs, size_t desc_cnt);
void pb_every_free(struct pb_every *e);

#endif /* UDT_PROBES_H */
