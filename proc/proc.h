/* SPDX-License-Identifier: MIT */
/*
 * proc: a live target process and its objects, as illumos's libproc is
 * for libdtrace. It knows nothing of sessions, D or output: the consumer
 * (consumer/) asks it about a process and tells it what to do to one.
 *
 * It owns: permission to inspect a process and its memory (reads and
 * writes), its mapped ELF objects and their symbols (pr_proc, pr_module),
 * the probe tables and SystemTap notes those objects carry (table.c,
 * notes.c, registry.c), the naming of addresses as module`function+0xoff
 * (symbol.c), the attach lock (lock.c), ptrace injection and remote calls
 * into it (inject.c), the system's process events (procwatch.c), and the
 * planning of a jump in place of a trap at a probe site (reloc.c).
 *
 * It includes only the runtime's ABI headers (abi/), util/ and the
 * system's: never consumer/, output/ or dlang/ (docs/layout.md).
 *
 * Everything goes through /proc/PID and process_vm_readv/writev, which the
 * kernel allows exactly when the consumer may ptrace the target (same uid
 * or CAP_SYS_PTRACE, Yama's ptrace_scope honoured). Only the injection
 * (pr_runtime_load(), pr_inject_sync()) stops the target or attaches
 * ptrace, briefly. The probe tables are read from the objects' files
 * (section .udtrace.table) and their addresses resolved against the
 * mappings, so listing probes works even in a process without the runtime.
 * What comes from the target (its memory, /proc entries, ELF files) is
 * hostile input: bounded and checked before use.
 */
#ifndef UDT_PROC_H
#define UDT_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "proc/table.h"
#include "abi/note_arg.h"

/* One probe table of a mapped object. */
struct pr_ptable {
	struct pr_table t;        /* checked; t.base points into the copy below */
	void *copy;               /* the table's bytes (malloc'ed) */
	uint64_t addr;            /* its address in the target */
	bool from_file;           /* read from its object's file (a -G table), not the registry */
	/* for a session that follows the target's loads and unloads (pr_proc_sync()) */
	bool registered;          /* in udt__registry at the last sync */
	bool probed;              /* its probes were made (pb_probes_load(), pb_probes_add_new()) */
	bool gone;                /* unregistered, or its object unloaded: kept for its probes */
};

/*
 * One probe site of a SystemTap note (.note.stapsdt) of an object without a
 * udtrace probe table (proc/notes.c; docs/notes.md).
 */
struct pr_note {
	uint64_t pc;              /* its nop, in the target */
	uint64_t sem;             /* its semaphore in the target, 0: none */
	const char *prov;         /* as the note says: "python" */
	const char *name;         /* "function__entry" */
	const char *argstr;       /* the operands: "8@%rbp 8@%r12 -4@%eax" */
	const char *func;         /* the function holding it, "" unknown (set with its probe) */
	uint32_t arg_cnt;
	bool bad;                 /* an operand this version cannot read */
	struct udt_note_arg args[UDT_NOTE_MAX_ARGS];
	const char *arg_sym[UDT_NOTE_MAX_ARGS]; /* a RIP-relative operand's symbol, else NULL */
};

/* One mapped ELF object (executable or shared library). */
struct pr_module {
	char *path;               /* as /proc/PID/maps names it, " (deleted)" cut off */
	char *name;               /* base name: the D module name ("httpd", "libc.so.6") */
	uint64_t base;            /* load bias: target address = base + ELF vaddr */
	uint64_t lo, hi;          /* extent of its mappings in the target */
	struct pr_ptable **tables; /* its probe tables (usually 0 or 1), each in its own allocation */
	size_t table_cnt;
	bool sdt;                 /* it defines SDT(9) providers, whose tables only a runtime makes */
	/* symbols, loaded on first use (pr_module_sym*) */
	struct pr_sym *syms;      /* sorted by address */
	size_t sym_cnt;
	bool syms_loaded;
	const char *syms_from;    /* where they came from: ".symtab", ".dynsym and its debug file's
				     .symtab"... (for dtrace -l -v) */
	char *debug_path;         /* that debug file, when one was read */
	/* the name that opened its file: /proc/PID/root/<path>, /proc/PID/exe or
	   /proc/PID/map_files/START-END (deleted files); pr_module_* have no pid */
	char *file;
	/* what tells it from another load of a file: its inode and the start of the mapping of
	   its lowest file offset (0, 0: a module without a file) */
	uint64_t ino, map_start;
	bool gone;                /* unmapped (pr_proc_rescan()), or unloaded: kept for its probes */
	/* its SystemTap notes' sites, when it has no probe table of ours (notes.c) */
	struct pr_note *notes;
	size_t note_cnt;
	char *note_strs;          /* their strings (one allocation) */
	bool notes_grouped;       /* by probe, each site's function found (probes.c) */
	struct pr_obj *obj;       /* its file, open for the plans of reloc.c (pr_module_close()) */
};

struct pr_sym {
	uint64_t addr;            /* in the target */
	uint64_t size;
	char *name;
	bool func;
};

/*
 * The modules are each in an allocation of their own, and so are their
 * tables: a probe keeps pointers to both while modules come and go.
 */
struct pr_proc {
	pid_t pid;
	struct pr_module **mods;
	size_t mod_cnt, mod_cap;
	uint64_t reg_addr;        /* udt__registry in the target, once looked up (registry.c) */
	char errmsg[512];         /* the last error, for messages */
	/* following its loads (pr_proc_maps_moved(), pr_proc_loader_busy()) */
	int statm_fd1;            /* /proc/PID/statm's descriptor + 1 (0: not open) */
	uint64_t statm_size;
	uint64_t r_debug;         /* its dynamic linker's struct r_debug; 1: none found */
};

/*
 * pr_proc_open() - check that pid exists and that we may inspect it, and
 * read its mappings and the probe tables of its objects.
 * Return: 0, or -ESRCH (no such process: "dtrace: failed to grab pid N: No
 * such process"), -EPERM / -EACCES (not allowed: "... permission denied"),
 * or another negative errno; p->errmsg says what failed in DTrace's words.
 * Not thread-safe: serialize calls on the same handle.
 */
int pr_proc_open(struct pr_proc *p, pid_t pid);

/*
 * pr_proc_load_registry() - add the probe tables the target's runtime
 * registered and no object's file holds (SDT(9) and dynamic providers'):
 * each to the module holding its dispatch pointer, or to a module without a
 * file (proc/registry.c). It looks up the runtime's symbols, so
 * pr_proc_open() leaves it to pb_probes_load(); calling it again adds only
 * tables registered since.
 * Return: 0, or -ENOMEM.
 */
int pr_proc_load_registry(struct pr_proc *p);

/* Re-read the mappings and tables (after dlopen/dlclose in the target). Same returns. */
int pr_proc_refresh(struct pr_proc *p);

/*
 * pr_proc_rescan() - re-read the target's mappings without forgetting
 * anything: add a module for each object mapped since (its tables with
 * probed false), and mark gone the modules no longer mapped. A module
 * marked gone is never found again (pr_proc_module_at(), pr_proc_lookup()),
 * and a later load of the same file is a new module. Return: 0, or a
 * negative errno (-ESRCH: the target is gone).
 */
int pr_proc_rescan(struct pr_proc *p);

/*
 * pr_proc_maps_moved() - has p's memory map moved since the last call (its
 * size in /proc/PID/statm: a library mapped, or any other mapping)? One
 * small read; the first call says true, and so does the call after
 * pr_proc_maps_recheck().
 */
bool pr_proc_maps_moved(struct pr_proc *p);
void pr_proc_maps_recheck(struct pr_proc *p);
/* Is p's dynamic linker mapping or unmapping an object (_r_debug.r_state is not RT_CONSISTENT)? */
bool pr_proc_loader_busy(struct pr_proc *p);
/* Does process pid have shadow stacks (x86 CET: /proc/PID/status)? */
bool pr_proc_shadow_stack(pid_t pid);

/*
 * pr_proc_sync() - follow the target's registry (proc/registry.c): mark
 * gone the tables only the registry gave that it no longer holds; when it
 * holds a table we do not know, rescan the mappings and read the new tables;
 * then set each live table's registered. *ret_gen gets the registry's gen as
 * read before its slots (so that a change during the sync shows at the next).
 * Return: 0, -ENOENT (no runtime in the target), or another negative errno.
 */
int pr_proc_sync(struct pr_proc *p, uint32_t *ret_gen);

/* The registry's gen (one small read), to notice loads and unloads. 0 or a negative errno. */
int pr_proc_registry_gen(struct pr_proc *p, uint32_t *ret_gen);

/*
 * pr_proc_forget_dispatch() - the object whose dispatch pointer is at disp
 * was unloaded (the runtime struck it from a session's undo lists): mark
 * its tables gone, and its module too if they came from its file, so that a
 * load of it at the same place is seen as the new object it is.
 */
void pr_proc_forget_dispatch(struct pr_proc *p, uint64_t disp);

/* The address of table pt's dispatch pointer in the target. */
uint64_t pr_ptable_dispatch(const struct pr_ptable *pt);

/*
 * pr__notes_read() - the sites of the SystemTap notes of e, the file of mod
 * (proc/notes.c), into mod->notes. A bad note is skipped, and the first
 * said in p->errmsg. Return: 0, or -ENOMEM.
 */
struct Elf;
int pr__notes_read(struct pr_proc *p, struct pr_module *mod, struct Elf *e);

/*
 * pr_note_arg_parse() - one operand of a note ("-4@%eax", "8@-16(%rbp)",
 * "8@sym+8(%rip)", "%rbx"), len characters at s, into *ret. A RIP-relative
 * operand's symbol goes into symbuf (symbuf_sz bytes), *ret_sym says so, and
 * ret->disp is its offset. Return: 0, or -EINVAL (an operand not read here).
 */
int pr_note_arg_parse(const char *s, size_t len, struct udt_note_arg *ret, char *symbuf,
		      size_t symbuf_sz, bool *ret_sym);

/* For proc.c and registry.c: add a copy of module mod to p, of table pt to mod. 0 or -ENOMEM. */
int pr__add_module(struct pr_proc *p, struct pr_module *mod);
int pr__module_add_table(struct pr_module *mod, const struct pr_ptable *pt);

void pr_proc_close(struct pr_proc *p);

/*
 * Does the process have probes: a -G table, SDT(9) providers (which only a
 * runtime lists), or SystemTap notes (whose sites a runtime patches)?
 */
bool pr_proc_has_probes(const struct pr_proc *p);

/*
 * pr_file_providers() - the providers of the probes an ELF file holds,
 * without a process: its -G tables', its SystemTap notes' (names without
 * the pid), and "*" for one whose providers only a runtime names (SDT(9)
 * providers, the runtime itself: dynamic providers). A name may repeat.
 * Return: the count, with *ret_names (malloc'ed, each name malloc'ed), or a
 * negative errno (the file could not be opened).
 */
int pr_file_providers(const char *path, char ***ret_names);

/* Copy len bytes from / to the target. Return: 0, or a negative errno (-EFAULT, -ESRCH...). */
int pr_proc_read(const struct pr_proc *p, uint64_t addr, void *buf, size_t len);
int pr_proc_write(const struct pr_proc *p, uint64_t addr, const void *buf, size_t len);

/*
 * pr_proc_put_back() - through /proc/PID/mem (which writes read-only text, as
 * process_vm_writev does not), write orig[i] at addr[i] where the byte there
 * is still was, one byte each (a thread sees one or the other), for i < n.
 * Return: 0, or a negative errno (the file could not be opened).
 */
int pr_proc_put_back(const struct pr_proc *p, const uint64_t *addr, const uint8_t *orig,
		     size_t n, uint8_t was);

/* A NUL-terminated string from the target, at most max bytes (truncated). 0 or -errno. */
int pr_proc_read_str(const struct pr_proc *p, uint64_t addr, char *buf, size_t max);

/* The module mapped at addr, or NULL. */
struct pr_module *pr_proc_module_at(struct pr_proc *p, uint64_t addr);

/* The first module whose name (base name) or path is name, or NULL. */
struct pr_module *pr_proc_module(struct pr_proc *p, const char *name);

/*
 * pr_proc_lookup() - the address of a symbol (dynamic or static symbol
 * table) of any module: the first found, in mapping order.
 * Return: 0 with *ret_addr (and *ret_mod if not NULL), or -ENOENT.
 */
int pr_proc_lookup(struct pr_proc *p, const char *sym, uint64_t *ret_addr,
		   struct pr_module **ret_mod);

/*
 * pr_proc_symbolize() - the function containing addr: its module, name and
 * offset. Return: 0, or -ENOENT (no module, or no symbol covers it).
 */
int pr_proc_symbolize(struct pr_proc *p, uint64_t addr, struct pr_module **ret_mod,
		      const struct pr_sym **ret_sym);

/*
 * pr_module_open() - open mod's file for reading, as pr_proc_open() found
 * it (or by its path, if the target is gone). Return: a descriptor, or a
 * negative value.
 */
int pr_module_open(const struct pr_module *mod);

/*
 * pr_module_sym_addr() - the address in the target of symbol name (any kind,
 * .symtab or .dynsym) of mod. Return: 0 with *ret_addr, or -ENOENT.
 */
int pr_module_sym_addr(struct pr_module *mod, const char *name, uint64_t *ret_addr);

/* pr_proc_symbolize() within module mod: the function symbol covering addr. 0 or -ENOENT. */
int pr_module_symbolize(struct pr_module *mod, uint64_t addr, const struct pr_sym **ret_sym);
/* The index of mod's first symbol (its loaded symbols, in address order) above addr. */
size_t pr_module_sym_above(const struct pr_module *mod, uint64_t addr);

/*
 * pr_module_func_range() - the address range of function name in mod.
 * Return: 0 with [*ret_lo, *ret_hi), or -ENOENT.
 */
int pr_module_func_range(struct pr_module *mod, const char *name, uint64_t *ret_lo,
			 uint64_t *ret_hi);

/* The module of p's executable (/proc/PID/exe), or NULL. */
struct pr_module *pr_proc_exe(struct pr_proc *p);

/* A function of a module, as the pid provider sees them (pr_module_funcs()). */
struct pr_func {
	const char *name;         /* its preferred symbol's name (sym_cmp's order: proc.c) */
	uint64_t addr, size;      /* in the target */
	const struct pr_sym *syms; /* every symbol at its address, the preferred first */
	size_t nsyms;
};

/*
 * pr_module_funcs() - the functions of mod: one for each address that a
 * sized function symbol of its .symtab, else its .dynsym, or its debug
 * file's .symtab (/usr/lib/debug/.build-id) names, by address; a name
 * with a hidden version (name@VERSION) or a compiler's cold part
 * (name.cold) is no function's. Return: the count, with *ret (malloc'ed;
 * its names are mod's, valid while mod is).
 */
size_t pr_module_funcs(struct pr_module *mod, struct pr_func **ret);

/* The target's command name (/proc/PID/comm), for execname. 0 or -errno. */
int pr_proc_execname(const struct pr_proc *p, char *buf, size_t sz);

/* -- Addresses named (symbol.c; docs/profile.md, "Stacks") ------------------------------ */

/* How an address is named. */
enum pr_symfmt {
	PR_SYM_ADDR = 1,           /* module`function+0xoff: uaddr(), a stack's frame */
	PR_SYM_FUNC,               /* module`function: usym(), ufunc() */
	PR_SYM_MOD,                /* module: umod() */
};

/* A namer of process pid's addresses, with its own handle (symbol.c says how it follows). */
struct pr_syms;
struct pr_syms *pr_syms_new(pid_t pid);
void pr_syms_free(struct pr_syms *s);
/*
 * pr_syms_name() - pc as DTrace names it: "module`function+0xoff"
 * (PR_SYM_ADDR; "module`function" at the function's start), or
 * "module`function" (PR_SYM_FUNC: usym(), ufunc()), or "module" (PR_SYM_MOD:
 * umod()); "module`0x..." without a symbol, "0x..." outside any module. ret: pc is a return address (looked up one byte before). The
 * string stays valid until s is freed.
 */
const char *pr_syms_name(struct pr_syms *s, uint64_t pc, enum pr_symfmt fmt, bool ret);

/* -- The attach lock (lock.c) ---------------------------------------------------------- */

/*
 * pr_attach_lock() - take process pid's attach lock: flock() on
 * /proc/PID/mem, which dtrace sessions take to change what they share in
 * the process (its control block's slots, semaphores, dispatch pointers)
 * and to inject code into it, one at a time (docs/runtime.md, "Several
 * sessions"). Waits 5 seconds at most.
 * Return: a descriptor for pr_attach_unlock(), or a negative errno
 * (-ESRCH: the process is gone; -EWOULDBLOCK: held too long) with *ret_err
 * (malloc'ed): "failed to grab pid N: ..." (who holds it, when known).
 */
int pr_attach_lock(pid_t pid, char **ret_err);
void pr_attach_unlock(int fd);

/* -- The runtime in the process (inject.c; docs/injection.md) ------------------------ */

/*
 * pr_runtime_path() - the runtime dtrace loads into processes: the file
 * $UDTRACE_RUNTIME names when it is set (empty: none), else libudtrace.so.1
 * of this dtrace's installation, found from the executable's directory (the
 * installed layout, then the build tree's ../lib).
 * Return: a malloc'ed absolute path, or NULL (none, or not found).
 */
char *pr_runtime_path(void);

/*
 * pr_runtime_load() - make sure process p has a udtrace runtime: if it has
 * none, load the one at path (absolute) into it by a brief ptrace injection
 * of a dlopen() call (docs/injection.md), which leaves the process as it
 * was but for the library, then re-read p (pr_proc_refresh()). Refused,
 * with the process untouched, for a set-id, non-dumpable or static process,
 * one without dlopen(), or when ptrace is not allowed.
 * Return: 1 (loaded now), 0 (it had one: it is reused), or a negative errno
 * with *ret_err (malloc'ed), the reason, to follow "... pid N: "; -EAGAIN
 * when its dynamic linker has not mapped its C library yet (just after its
 * exec: look again soon).
 * Not thread-safe: serialize calls on the same handle.
 */
int pr_runtime_load(struct pr_proc *p, const char *path, char **ret_err);

/*
 * pr_runtime_unloadable() - why no code may be loaded into process pid: it
 * runs set-id, it is not dumpable, or it is statically linked (no dynamic
 * linker). Return: the reason (malloc'ed), or NULL.
 */
char *pr_runtime_unloadable(pid_t pid);

/*
 * pr_inject_sync() - run the runtime's udt__profile_sync() in one thread of p by
 * ptrace, restoring the thread exactly (docs/injection.md).
 * Return: 0, or a negative errno with *ret_err (malloc'ed) saying why.
 */
int pr_inject_sync(struct pr_proc *p, char **ret_err);

/*
 * pr_runtime_check() - does p have a runtime that speaks our protocol (udt__runtime_id)?
 * Return: 0, -ENOENT (none: "the process has no udtrace runtime") or -EPROTO
 * (another version), with *ret_err (malloc'ed) saying which.
 */
int pr_runtime_check(struct pr_proc *p, char **ret_err);

/* -- A jump in place of a trap (reloc.c) ------------------------------------------------ */

/*
 * pr_site_plan() - plan a jump for SystemTap site (of module mod) in place
 * of a trap: its mode, len, insn[] and bytes[] filled in (proc/reloc.c;
 * docs/notes.md, "Trampolines"). shstk: the process has shadow stacks.
 * Return: true, or false with *ret_why (a constant string) when it is to be
 * trapped.
 */
struct udt_site;
bool pr_site_plan(struct pr_module *mod, struct udt_site *site, bool shstk, const char **ret_why);

/*
 * pr_module_close() - close mod's file, which pr_site_plan() and
 * pr_func_text() open once for all their calls on mod (freeing mod closes it
 * too): when a consumer has planned its sites.
 */
void pr_module_close(struct pr_module *mod);
/* pr_proc_close_files() - pr_module_close() each module of p. */
void pr_proc_close_files(struct pr_proc *p);

/* -- A function's instructions, for the pid provider (reloc.c; docs/pid.md) ------------ */

/* One instruction of a function. */
struct pr_insn {
	uint32_t off;             /* from the function's start */
	uint8_t len;
	uint8_t flags;            /* PR_INSN_* */
	uint64_t dest;            /* a direct call's or jump's destination, in the target; 0 none */
};

enum {
	PR_INSN_RET = 1,          /* a ret (ret imm16, rep ret) */
	PR_INSN_OUT = 2,          /* a jump (or a conditional one) out of the function: a tail call */
	PR_INSN_TARGET = 4,       /* a branch, call or RIP-relative operand of the function names it */
	PR_INSN_END = 8,          /* the flow never goes on to the next one (ret, jmp, a trap) */
	PR_INSN_CALL = 16,        /* a direct call (of dest) */
	PR_INSN_PAUSE = 32,       /* pause: a spin loop's */
	PR_INSN_ICALL = 64,       /* an indirect call */
	PR_INSN_SYSCALL = 128,    /* syscall */
};

/* The instructions of a function, decoded from its module's file (its text may hold ours). */
struct pr_func_text {
	uint64_t lo, hi;          /* its extent in the target (its symbol's) */
	uint64_t next;            /* where the next function starts (UINT64_MAX: none known) */
	uint8_t *text;            /* its bytes, and pad bytes after them (the padding's) */
	uint32_t pad;
	struct pr_insn *v;        /* in order */
	size_t cnt;
	bool jump_table;          /* an indirect jmp, which may take a jump table */
	bool partial;             /* an instruction could not be decoded: v holds those before it */
	bool odd_target;          /* a branch names a place inside an instruction */
};

/*
 * pr_func_text() - decode the function [lo, hi) of mod (from its file).
 * Return: 0, or a negative errno with *ret_why (a constant string); free
 * with pr_func_text_free() either way.
 */
int pr_func_text(struct pr_module *mod, uint64_t lo, uint64_t hi, struct pr_func_text *ret,
		 const char **ret_why);
void pr_func_text_free(struct pr_func_text *f);

/*
 * Is instruction i of f a place of its function's return probe: a ret, or a
 * jump out of it (a tail call), as illumos's return scan finds them; where
 * an indirect jmp may take a jump table, only a ret after leave (or after
 * mov %rbp,%rsp; pop %rbp), as illumos's rule is.
 */
bool pr_func_returns(const struct pr_func_text *f, size_t i);

/*
 * pr_insn_plan() - the site of a probe at instruction i of f (a struct
 * udt_site of kind UDT_SITE_INSN, its keys and joins left to the caller): a
 * jump to a trampoline where sound (mode UDT_SITE_JUMP: the instruction and
 * those after it, five bytes at least and up to the instruction at cover_to
 * (0: none), none a branch's target in the function but the first, below
 * next_site (a site the jump may not take); for a return, is_return, else
 * the straight line of instructions that ends with it, above prev_site),
 * else a trap (mode UDT_SITE_TRAP, *ret_why saying why not a jump), or
 * neither.
 * Return: true with the site; false when the instruction cannot be
 * instrumented at all (*ret_why says why).
 */
bool pr_insn_plan(const struct pr_func_text *f, size_t i, uint64_t prev_site, uint64_t next_site,
		  uint64_t cover_to, bool is_return, bool shstk, bool traps_only,
		  struct udt_site *site, const char **ret_why);

/* -- The processes of the system (procwatch.c; docs/processes.md) ----------------------- */

/* What happened to a process. */
enum pr_pev_kind {
	PR_PEV_FORK,               /* pid was forked by parent (0: not known) */
	PR_PEV_EXEC,               /* pid exec'd */
	PR_PEV_EXIT,               /* pid exited */
};

struct pr_pev {
	enum pr_pev_kind kind;
	pid_t pid, parent;
};

struct pr_watch;
/* How processes are found. */
enum pr_watch_how {
	PR_WATCH_AUTO,             /* the kernel's process events where allowed, else /proc */
	PR_WATCH_SCAN,             /* scanning /proc only */
	PR_WATCH_EVENTS,           /* the kernel's process events, or an error */
};

/*
 * Follow the processes of the system: the kernel's process events where this
 * user may listen (PR_WATCH_AUTO, PR_WATCH_EVENTS), else /proc scanned every 100 ms. Its
 * descriptor to poll (-1: none), and how long until a scan is due.
 */
int pr_watch_open(struct pr_watch **ret, enum pr_watch_how how, char **ret_err);
void pr_watch_close(struct pr_watch *w);
int pr_watch_fd(const struct pr_watch *w);
uint64_t pr_watch_due_in(const struct pr_watch *w);
/* The events since the last call (*ret malloc'ed), scanning /proc when due. */
size_t pr_watch_take(struct pr_watch *w, struct pr_pev **ret);
/* The processes known now, by pid (*ret malloc'ed). */
size_t pr_watch_list(const struct pr_watch *w, pid_t **ret);
/* How many they are. */
size_t pr_watch_count(const struct pr_watch *w);
/*
 * pr_module_drop_own_notes() - keep of mod's notes those no table of ours has
 * (its file's, and those the runtime registered for it): the sites of our
 * header's probes are their tables' (each note names its probe's semaphore;
 * SDT(9) probes' are all the runtime's), a note of <sys/sdt.h> beside them
 * has no semaphore or one of its own (docs/notes.md, "Which objects"). Before
 * the notes are made probes of (they move).
 */
void pr_module_drop_own_notes(struct pr_module *mod);

/*
 * The handshakes of processes dtrace starts (follow.c; docs/processes.md):
 * pr_sync_step() sends c (0: nothing) on fd and awaits reply (0: none) for
 * ms at most; pr_follow_pair() makes the follow socket pair ([0] ours, with
 * SO_PASSCRED; [1] the descendants'), 0 or -errno; pr_follow_take() takes
 * one announcement from ours: the handshake's descriptor (ours to close)
 * and, in *ret_pid, the kernel's word for who sent it; -1: none now.
 */
bool pr_sync_step(int fd, char c, char reply, int ms);
int pr_follow_pair(int ret[2]);
int pr_follow_take(int fd, pid_t *ret_pid);

/* The pids /proc lists now, sorted (*ret malloc'ed). */
size_t pr_pids(pid_t **ret);
/* pid's parent, start time (clock ticks since boot) and state letter (/proc/PID/stat). 0 or -errno. */
int pr_pid_stat(pid_t pid, pid_t *ret_ppid, uint64_t *ret_start, char *ret_state);
/* pid's effective uid (/proc/PID/status), or -1. */
long pr_pid_uid(pid_t pid);
/* The executable pid's command line names (argv[0]: a path, or looked up in dtrace's PATH: a
   guess, for a process dtrace may not inspect), malloc'ed; NULL: none found. */
char *pr_pid_cmd_exe(pid_t pid);

#endif /* UDT_PROC_H */
