/* SPDX-License-Identifier: MIT */
/*
 * Inspecting a target process from the consumer: permission, memory, the
 * ELF objects it has mapped, their symbols and their probe tables.
 *
 * Everything goes through /proc/PID and process_vm_readv/writev, which the
 * kernel allows exactly when the consumer may ptrace the target (same uid
 * or CAP_SYS_PTRACE, Yama's ptrace_scope honoured). Nothing here stops the
 * target or attaches ptrace. The probe tables are read from the objects'
 * files (section .udtrace.table) and their addresses resolved against the
 * mappings, so listing probes works even in a process without the runtime.
 */
#ifndef UDT_CONSUMER_PROC_H
#define UDT_CONSUMER_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "consumer/table.h"
#include "runtime/note_arg.h"

/* One probe table of a mapped object. */
struct cs_ptable {
	struct cs_table t;        /* checked; t.base points into the copy below */
	void *copy;               /* the table's bytes (malloc'ed) */
	uint64_t addr;            /* its address in the target */
	bool from_file;           /* read from its object's file (a -G table), not the registry */
	/* for a session that follows the target's loads and unloads (cs_proc_sync()) */
	bool registered;          /* in udt__registry at the last sync */
	bool probed;              /* its probes were made (cs_probes_load(), cs_probes_add_new()) */
	bool gone;                /* unregistered, or its object unloaded: kept for its probes */
};

/*
 * One probe site of a SystemTap note (.note.stapsdt) of an object without a
 * udtrace probe table (consumer/notes.c; docs/notes.md).
 */
struct cs_note {
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
struct cs_module {
	char *path;               /* as /proc/PID/maps names it, " (deleted)" cut off */
	char *name;               /* base name: the D module name ("httpd", "libc.so.6") */
	uint64_t base;            /* load bias: target address = base + ELF vaddr */
	uint64_t lo, hi;          /* extent of its mappings in the target */
	struct cs_ptable **tables; /* its probe tables (usually 0 or 1), each in its own allocation */
	size_t table_cnt;
	bool sdt;                 /* it defines SDT(9) providers, whose tables only a runtime makes */
	/* symbols, loaded on first use (cs_module_sym*) */
	struct cs_sym *syms;      /* sorted by address */
	size_t sym_cnt;
	bool syms_loaded;
	/* the name that opened its file: /proc/PID/root/<path>, /proc/PID/exe or
	   /proc/PID/map_files/START-END (deleted files); cs_module_* have no pid */
	char *file;
	/* what tells it from another load of a file: its inode and the start of the mapping of
	   its lowest file offset (0, 0: a module without a file) */
	uint64_t ino, map_start;
	bool gone;                /* unmapped (cs_proc_rescan()), or unloaded: kept for its probes */
	/* its SystemTap notes' sites, when it has no probe table of ours (notes.c) */
	struct cs_note *notes;
	size_t note_cnt;
	char *note_strs;          /* their strings (one allocation) */
	bool notes_grouped;       /* by probe, each site's function found (probes.c) */
};

struct cs_sym {
	uint64_t addr;            /* in the target */
	uint64_t size;
	char *name;
	bool func;
};

/*
 * The modules are each in an allocation of their own, and so are their
 * tables: a probe keeps pointers to both while modules come and go.
 */
struct cs_proc {
	pid_t pid;
	struct cs_module **mods;
	size_t mod_cnt, mod_cap;
	uint64_t reg_addr;        /* udt__registry in the target, once looked up (registry.c) */
	char errmsg[512];         /* the last error, for messages */
};

/*
 * cs_proc_open() - check that pid exists and that we may inspect it, and
 * read its mappings and the probe tables of its objects.
 * Return: 0, or -ESRCH (no such process: "dtrace: failed to grab pid N: No
 * such process"), -EPERM / -EACCES (not allowed: "... permission denied"),
 * or another negative errno; p->errmsg says what failed in DTrace's words.
 * Not thread-safe: serialize calls on the same handle.
 */
int cs_proc_open(struct cs_proc *p, pid_t pid);

/*
 * cs_proc_load_registry() - add the probe tables the target's runtime
 * registered and no object's file holds (SDT(9) and dynamic providers'):
 * each to the module holding its dispatch pointer, or to a module without a
 * file (consumer/registry.c). It looks up the runtime's symbols, so
 * cs_proc_open() leaves it to cs_probes_load(); calling it again adds only
 * tables registered since.
 * Return: 0, or -ENOMEM.
 */
int cs_proc_load_registry(struct cs_proc *p);

/* Re-read the mappings and tables (after dlopen/dlclose in the target). Same returns. */
int cs_proc_refresh(struct cs_proc *p);

/*
 * cs_proc_rescan() - re-read the target's mappings without forgetting
 * anything: add a module for each object mapped since (its tables with
 * probed false), and mark gone the modules no longer mapped. A module
 * marked gone is never found again (cs_proc_module_at(), cs_proc_lookup()),
 * and a later load of the same file is a new module. Return: 0, or a
 * negative errno (-ESRCH: the target is gone).
 */
int cs_proc_rescan(struct cs_proc *p);

/*
 * cs_proc_sync() - follow the target's registry (consumer/registry.c): mark
 * gone the tables only the registry gave that it no longer holds; when it
 * holds a table we do not know, rescan the mappings and read the new tables;
 * then set each live table's registered. *ret_gen gets the registry's gen as
 * read before its slots (so that a change during the sync shows at the next).
 * Return: 0, -ENOENT (no runtime in the target), or another negative errno.
 */
int cs_proc_sync(struct cs_proc *p, uint32_t *ret_gen);

/* The registry's gen (one small read), to notice loads and unloads. 0 or a negative errno. */
int cs_proc_registry_gen(struct cs_proc *p, uint32_t *ret_gen);

/*
 * cs_proc_forget_dispatch() - the object whose dispatch pointer is at disp
 * was unloaded (the runtime struck it from a session's undo lists): mark
 * its tables gone, and its module too if they came from its file, so that a
 * load of it at the same place is seen as the new object it is.
 */
void cs_proc_forget_dispatch(struct cs_proc *p, uint64_t disp);

/* The address of table pt's dispatch pointer in the target. */
uint64_t cs_ptable_dispatch(const struct cs_ptable *pt);

/*
 * cs__notes_read() - the sites of the SystemTap notes of e, the file of mod
 * (consumer/notes.c), into mod->notes. A bad note is skipped, and the first
 * said in p->errmsg. Return: 0, or -ENOMEM.
 */
struct Elf;
int cs__notes_read(struct cs_proc *p, struct cs_module *mod, struct Elf *e);

/*
 * cs_note_arg_parse() - one operand of a note ("-4@%eax", "8@-16(%rbp)",
 * "8@sym+8(%rip)", "%rbx"), len characters at s, into *ret. A RIP-relative
 * operand's symbol goes into symbuf (symbuf_sz bytes), *ret_sym says so, and
 * ret->disp is its offset. Return: 0, or -EINVAL (an operand not read here).
 */
int cs_note_arg_parse(const char *s, size_t len, struct udt_note_arg *ret, char *symbuf,
		      size_t symbuf_sz, bool *ret_sym);

/* For proc.c and registry.c: add a copy of module mod to p, of table pt to mod. 0 or -ENOMEM. */
int cs__proc_add_module(struct cs_proc *p, struct cs_module *mod);
int cs__module_add_table(struct cs_module *mod, const struct cs_ptable *pt);

void cs_proc_close(struct cs_proc *p);

/*
 * Does the process have probes: a -G table, SDT(9) providers (which only a
 * runtime lists), or SystemTap notes (whose sites a runtime patches)?
 */
bool cs_proc_has_probes(const struct cs_proc *p);

/*
 * cs_file_providers() - the providers of the probes an ELF file holds,
 * without a process: its -G tables', its SystemTap notes' (names without
 * the pid), and "*" for one whose providers only a runtime names (SDT(9)
 * providers, the runtime itself: dynamic providers). A name may repeat.
 * Return: the count, with *ret_names (malloc'ed, each name malloc'ed), or a
 * negative errno (the file could not be opened).
 */
int cs_file_providers(const char *path, char ***ret_names);

/* Copy len bytes from / to the target. Return: 0, or a negative errno (-EFAULT, -ESRCH...). */
int cs_proc_read(const struct cs_proc *p, uint64_t addr, void *buf, size_t len);
int cs_proc_write(const struct cs_proc *p, uint64_t addr, const void *buf, size_t len);

/* A NUL-terminated string from the target, at most max bytes (truncated). 0 or -errno. */
int cs_proc_read_str(const struct cs_proc *p, uint64_t addr, char *buf, size_t max);

/* The module mapped at addr, or NULL. */
struct cs_module *cs_proc_module_at(struct cs_proc *p, uint64_t addr);

/* The first module whose name (base name) or path is name, or NULL. */
struct cs_module *cs_proc_module(struct cs_proc *p, const char *name);

/*
 * cs_proc_lookup() - the address of a symbol (dynamic or static symbol
 * table) of any module: the first found, in mapping order.
 * Return: 0 with *ret_addr (and *ret_mod if not NULL), or -ENOENT.
 */
int cs_proc_lookup(struct cs_proc *p, const char *sym, uint64_t *ret_addr,
		   struct cs_module **ret_mod);

/*
 * cs_proc_symbolize() - the function containing addr: its module, name and
 * offset. Return: 0, or -ENOENT (no module, or no symbol covers it).
 */
int cs_proc_symbolize(struct cs_proc *p, uint64_t addr, struct cs_module **ret_mod,
		      const struct cs_sym **ret_sym);

/*
 * cs_module_open() - open mod's file for reading, as cs_proc_open() found
 * it (or by its path, if the target is gone). Return: a descriptor, or a
 * negative value.
 */
int cs_module_open(const struct cs_module *mod);

/*
 * cs_module_sym_addr() - the address in the target of symbol name (any kind,
 * .symtab or .dynsym) of mod. Return: 0 with *ret_addr, or -ENOENT.
 */
int cs_module_sym_addr(struct cs_module *mod, const char *name, uint64_t *ret_addr);

/* cs_proc_symbolize() within module mod: the function symbol covering addr. 0 or -ENOENT. */
int cs_module_symbolize(struct cs_module *mod, uint64_t addr, const struct cs_sym **ret_sym);

/*
 * cs_module_func_range() - the address range of function name in mod.
 * Return: 0 with [*ret_lo, *ret_hi), or -ENOENT.
 */
int cs_module_func_range(struct cs_module *mod, const char *name, uint64_t *ret_lo,
			 uint64_t *ret_hi);

/* The target's command name (/proc/PID/comm), for execname. 0 or -errno. */
int cs_proc_execname(const struct cs_proc *p, char *buf, size_t sz);

#endif /* UDT_CONSUMER_PROC_H */
