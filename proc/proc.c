/* SPDX-License-Identifier: MIT */
/*
 * Inspecting a live target process for the consumer (proc/proc.h): the
 * permission check, memory reads and writes, the ELF objects it has mapped,
 * their symbols and their probe tables. The target is never stopped.
 *
 * Mechanism. pr_proc_open() checks that /proc/PID exists, reads
 * /proc/PID/maps and reads a few bytes of the target with process_vm_readv():
 * the kernel allows both exactly when we may ptrace the target
 * (PTRACE_MODE_ATTACH_REALCREDS for the read: same uid or CAP_SYS_PTRACE,
 * Yama's ptrace_scope honoured), so an EPERM/EACCES there is DTrace's
 * "permission denied". Nothing attaches ptrace.
 *
 * Objects. The file-backed mappings of maps are grouped by path (and inode):
 * consecutive mappings of one file, a new group starting when a second
 * mapping at file offset 0 appears (the same file loaded twice). Each group
 * is opened as an ELF file and kept when it is an executable or shared
 * object whose PT_LOAD segments agree with the mappings (a file merely
 * mmap'ed as data, e.g. by a debugger, does not). The load bias is
 *
 *	base = start of the lowest-offset mapping
 *	       - (page-aligned p_vaddr of the PT_LOAD holding that offset)
 *
 * which is 0 for ET_EXEC; a target address is base + ELF vaddr. lo/hi cover
 * the group's mappings and the segments' extent (so .bss counts as the
 * module's). The file is read through /proc/PID/root/<path> (the target's
 * mount namespace and chroot), falling back to the plain path; a mapping
 * whose file was deleted (maps appends " (deleted)", which we strip from
 * the path) is read through /proc/PID/exe for the executable or
 * /proc/PID/map_files/START-END (which needs CAP_SYS_ADMIN or
 * CAP_CHECKPOINT_RESTORE) and skipped when neither opens. mod->file keeps
 * the name that opened, for the lazy symbol load.
 *
 * Probe tables. Section .udtrace.table holds the tables of all the -G
 * objects linked into the file, each starting at the previous one's
 * total_sz rounded up to 8 (docs/format.md §2). Each is copied out of the
 * file into its own malloc'ed buffer (aligned, and outliving the file) and
 * checked by pr_table_open(); its address in the target is base + sh_addr +
 * offset. A bad table ends the walk of its section with a note in errmsg:
 * the object and the open still succeed. The tables come from the file, not
 * from memory, so a process without the runtime can be listed; they are
 * read-only data without relocations, so the bytes are the same.
 *
 * Symbols are loaded on first use per module (pr_proc_lookup(),
 * pr_proc_symbolize(), pr_module_func_range()): the defined symbols of
 * .symtab and .dynsym merged, duplicates dropped, sorted by address. A
 * dynamic symbol of a non-default version is named "name@VERSION" (as nm -D
 * shows it), so a lookup by plain name finds the default version, as dlsym()
 * does. The array and all the names are one allocation: free(mod->syms)
 * frees both. STT_GNU_IFUNC symbols count as functions; a lookup returns the
 * resolver's address, not the implementation the resolver picks.
 *
 * What can go wrong: the target maps and unmaps concurrently (a dlopen
 * after open is seen after pr_proc_refresh(); a read of memory unmapped
 * meanwhile fails with -EFAULT); the target exits (-ESRCH from memory
 * accesses, and lazy symbol loads of a deleted file fail: those modules
 * then have no symbols); a file replaced on disk after the target mapped it
 * (an upgrade) shows as deleted, so the old contents are read through
 * map_files, never the new file.
 */
#include "proc/proc.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <gelf.h>
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "util/util.h"

#define DELETED_SUFFIX " (deleted)"
#define UDT_SDT_SECTION "udt_sdt_probes" /* an object's SDT(9) probes (udtrace/sdt.h) */
#define PATH_SZ 4200 /* "/proc/PID/root" + PATH_MAX */

/* One file-backed line of /proc/PID/maps. */
struct mapping {
	uint64_t start, end, off, ino;
	const char *path; /* into the maps buffer, " (deleted)" cut off */
	bool deleted;
	bool exec;
};

/* The mappings of one file: a candidate module. */
struct group {
	const char *path;
	uint64_t ino;
	bool deleted;
	bool has_off0;
	size_t low; /* index of its mapping with the lowest file offset */
	size_t first, last; /* its mappings are among maps[first..last] */
};

/* What pr_proc_open() works with while it reads the mappings. */
struct scan {
	struct mapping *maps;
	size_t map_cnt;
	size_t *map_grp; /* group index of each mapping */
	struct group *grps;
	size_t grp_cnt;
	char *exe; /* /proc/PID/exe's target, read when a deleted file needs it */
	bool exe_read;
	uint64_t pagesz;
};

static void scan_free(struct scan *s)
{
	free(s->maps);
	free(s->map_grp);
	free(s->grps);
	free(s->exe);
}

static uint64_t align_down(uint64_t v, uint64_t a)
{
	return v & ~(a - 1);
}

static int grab_fail(struct pr_proc *p, int err)
{
	const char *why;

	if (err == -ESRCH)
		why = "No such process";
	else if (err == -EPERM || err == -EACCES)
		why = "permission denied";
	else
		why = strerror(-err);
	snprintf(p->errmsg, sizeof(p->errmsg), "failed to grab pid %d: %s", (int)p->pid, why);
	return err;
}

/* A non-fatal note for errmsg; the first one is kept. */
__attribute__((format(printf, 2, 3))) static void note(struct pr_proc *p, const char *fmt, ...)
{
	va_list ap;

	if (p->errmsg[0])
		return;
	va_start(ap, fmt);
	vsnprintf(p->errmsg, sizeof(p->errmsg), fmt, ap);
	va_end(ap);
}

/* The whole of a (/proc) file, NUL-terminated; its size is unknown before reading. */
static int read_all(const char *path, char **ret_buf, size_t *ret_len)
{
	size_t len = 0, cap = 0;
	char *buf = NULL;
	int fd, err = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t n;

		if (cap - len < 2) {
			size_t ncap = cap ? 2 * cap : 16384;
			char *nbuf = realloc(buf, ncap);

			if (!nbuf) {
				err = -ENOMEM;
				goto out;
			}
			buf = nbuf;
			cap = ncap;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			goto out;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	*ret_buf = buf;
	*ret_len = len;
	buf = NULL;
out:
	free(buf);
	(void)close(fd);
	return err;
}

static bool ends_with(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	return len >= n && !memcmp(s + len - n, suffix, n);
}

/*
 * Parse maps (modifying buf: lines and the " (deleted)" markers are cut) into
 * its file-backed mappings, and note the first readable address of any
 * mapping for the permission check.
 */
static int parse_maps(char *buf, struct scan *s, uint64_t *ret_probe_addr)
{
	size_t cap = 0;
	bool have_probe = false;

	for (char *line = buf, *next; line && *line; line = next) {
		unsigned long long start, end, off, ino;
		unsigned int maj, min;
		char perms[5];
		int n = 0;
		struct mapping m = { 0 };
		char *path;
		size_t len;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (sscanf(line, "%llx-%llx %4s %llx %x:%x %llu %n", &start, &end, perms, &off,
			   &maj, &min, &ino, &n) < 7)
			continue;
		if (perms[0] == 'r' && !have_probe) {
			*ret_probe_addr = start;
			have_probe = true;
		}
		/* anonymous memory and [heap], [stack], [vdso], [anon:...] */
		if (!n || line[n] != '/' || !ino)
			continue;
		path = line + n;
		len = strlen(path);
		if (ends_with(path, len, DELETED_SUFFIX)) {
			path[len - strlen(DELETED_SUFFIX)] = '\0';
			m.deleted = true;
		}
		m.exec = perms[2] == 'x';
		m.start = start;
		m.end = end;
		m.off = off;
		m.ino = ino;
		m.path = path;
		if (s->map_cnt == cap) {
			struct mapping *nm;

			cap = cap ? 2 * cap : 64;
			nm = udt__reallocarray(s->maps, cap, sizeof(*nm));
			if (!nm)
				return -ENOMEM;
			s->maps = nm;
		}
		s->maps[s->map_cnt++] = m;
	}
	return 0;
}

/* Group the mappings by file (see the design comment). */
static int group_maps(struct scan *s)
{
	s->map_grp = calloc(s->map_cnt ? s->map_cnt : 1, sizeof(*s->map_grp));
	s->grps = calloc(s->map_cnt ? s->map_cnt : 1, sizeof(*s->grps));
	if (!s->map_grp || !s->grps)
		return -ENOMEM;
	for (size_t i = 0; i < s->map_cnt; i++) {
		const struct mapping *m = &s->maps[i];
		struct group *g = NULL;
		size_t k;

		for (k = s->grp_cnt; k-- > 0;) {
			if (s->grps[k].ino == m->ino && !strcmp(s->grps[k].path, m->path)) {
				g = &s->grps[k];
				break;
			}
		}
		if (g && m->off == 0 && g->has_off0)
			g = NULL; /* the same file mapped again from its start */
		if (!g) {
			k = s->grp_cnt++;
			g = &s->grps[k];
			g->path = m->path;
			g->ino = m->ino;
			g->deleted = m->deleted;
			g->low = i;
			g->first = i;
		}
		g->last = i;
		s->map_grp[i] = k;
		if (m->off == 0)
			g->has_off0 = true;
		if (m->off < s->maps[g->low].off)
			g->low = i;
	}
	return 0;
}

/* Open the file of a group (see the design comment); *ret_file names what opened. */
static int open_group_file(const struct pr_proc *p, struct scan *s, const struct group *g,
			   int *ret_fd, char **ret_file)
{
	char cand[2][PATH_SZ];
	size_t cand_cnt = 0;
	const struct mapping *low = &s->maps[g->low];

	if (g->deleted) {
		if (!s->exe_read) {
			char link[PATH_SZ], target[PATH_SZ];
			ssize_t n;

			s->exe_read = true;
			snprintf(link, sizeof(link), "/proc/%d/exe", (int)p->pid);
			n = readlink(link, target, sizeof(target) - 1);
			if (n > 0) {
				target[n] = '\0';
				if (ends_with(target, (size_t)n, DELETED_SUFFIX))
					target[n - (ssize_t)strlen(DELETED_SUFFIX)] = '\0';
				s->exe = strdup(target);
				if (!s->exe)
					return -ENOMEM;
			}
		}
		if (s->exe && !strcmp(s->exe, g->path))
			snprintf(cand[cand_cnt++], PATH_SZ, "/proc/%d/exe", (int)p->pid);
		snprintf(cand[cand_cnt++], PATH_SZ, "/proc/%d/map_files/%llx-%llx", (int)p->pid,
			 (unsigned long long)low->start, (unsigned long long)low->end);
	} else {
		if (snprintf(cand[cand_cnt], PATH_SZ, "/proc/%d/root%s", (int)p->pid, g->path) <
		    PATH_SZ)
			cand_cnt++;
		snprintf(cand[cand_cnt++], PATH_SZ, "%s", g->path);
	}
	for (size_t i = 0; i < cand_cnt; i++) {
		/* (the target may have put a device or a FIFO where its file was) */
		struct stat st;
		int fd = udt__open_regular(cand[i], O_RDONLY, &st);

		if (fd < 0)
			continue;
		/* the plain path is ours, not the target's: the same file only if the inode is */
		if (!strcmp(cand[i], g->path) && st.st_ino != g->ino) {
			(void)close(fd);
			continue;
		}
		*ret_file = strdup(cand[i]);
		if (!*ret_file) {
			(void)close(fd);
			return -ENOMEM;
		}
		*ret_fd = fd;
		return 0;
	}
	return -ENOENT;
}

/* The section named name, or NULL. */
static Elf_Scn *find_section(Elf *e, const char *name, GElf_Shdr *ret_sh)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(e, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(e, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, ret_sh))
			continue;
		n = elf_strptr(e, shstrndx, ret_sh->sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

/*
 * Compute the load bias of a group's ELF file and check that its PT_LOAD
 * segments agree with the mappings. Return: true when it is loaded as
 * mapped, with *ret_base, *ret_lo, *ret_hi.
 */
static bool place_object(Elf *e, const GElf_Ehdr *eh, const struct scan *s, size_t gi,
			 uint64_t *ret_base, uint64_t *ret_lo, uint64_t *ret_hi)
{
	const struct mapping *low = &s->maps[s->grps[gi].low];
	uint64_t ps = s->pagesz, base = 0, lo = UINT64_MAX, hi = 0;
	size_t phnum, consistent = 0;
	bool found = false;

	if (elf_getphdrnum(e, &phnum))
		return false;
	/* the PT_LOAD holding the lowest mapped file offset gives the bias */
	for (size_t i = 0; i < phnum && !found; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD || !ph.p_filesz)
			continue;
		if (low->off >= align_down(ph.p_offset, ps) &&
		    low->off < ph.p_offset + ph.p_filesz) {
			if (eh->e_type == ET_DYN)
				base = low->start - align_down(ph.p_vaddr, ps) -
				       (low->off - align_down(ph.p_offset, ps));
			found = true;
		}
	}
	if (!found)
		return false;
	/*
	 * Every segment whose first page lies in a mapping of the group must be
	 * mapped there from its own file offset, and executable if its code is: a
	 * whole file mmap'ed as data can pass the first test (linkers often give
	 * segments vaddr == offset) but not the second. A segment with no mapping
	 * at all is tolerated (text remapped to huge pages is anonymous memory).
	 */
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		uint64_t a, o;

		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		a = base + align_down(ph.p_vaddr, ps);
		lo = a < lo ? a : lo;
		if (base + ph.p_vaddr + ph.p_memsz > hi)
			hi = base + ph.p_vaddr + ph.p_memsz;
		if (!ph.p_filesz)
			continue;
		o = align_down(ph.p_offset, ps);
		for (size_t k = s->grps[gi].first; k <= s->grps[gi].last; k++) {
			const struct mapping *m = &s->maps[k];

			if (s->map_grp[k] != gi || a < m->start || a >= m->end)
				continue;
			if (m->off + (a - m->start) != o || ((ph.p_flags & PF_X) && !m->exec))
				return false;
			consistent++;
			break;
		}
	}
	if (!consistent)
		return false;
	hi = (hi + ps - 1) & ~(ps - 1);
	for (size_t k = s->grps[gi].first; k <= s->grps[gi].last; k++) {
		if (s->map_grp[k] != gi)
			continue;
		lo = s->maps[k].start < lo ? s->maps[k].start : lo;
		hi = s->maps[k].end > hi ? s->maps[k].end : hi;
	}
	*ret_base = base;
	*ret_lo = lo;
	*ret_hi = hi;
	return true;
}

static bool all_zero(const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (b[i])
			return false;
	return true;
}

/* Copy and check the probe tables of section .udtrace.table (docs/format.md §2). */
static int read_tables(struct pr_proc *p, struct pr_module *mod, Elf_Scn *scn, const GElf_Shdr *sh)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	const uint8_t *buf;
	size_t off = 0;

	if (sh->sh_type == SHT_NOBITS || !d || !d->d_buf) {
		note(p, "%s: cannot read section %s", mod->path, UDT_TABLE_SECTION);
		return 0;
	}
	buf = d->d_buf;
	while (off < d->d_size) {
		size_t rest = d->d_size - off, sz = rest;
		struct pr_ptable pt = { .from_file = true };
		uint32_t total;
		int err;

		if (all_zero(buf + off, rest))
			break; /* padding after the last table */
		if (rest >= offsetof(struct udt_table_hdr, total_sz) + sizeof(total)) {
			memcpy(&total, buf + off + offsetof(struct udt_table_hdr, total_sz),
			       sizeof(total));
			if (total < sz)
				sz = total;
		}
		/* a copy: aligned for the record accessors, and independent of the file */
		pt.copy = malloc(sz ? sz : 1);
		if (!pt.copy)
			return -ENOMEM;
		memcpy(pt.copy, buf + off, sz);
		err = pr_table_open(&pt.t, pt.copy, sz);
		if (err) {
			free(pt.copy);
			note(p, "%s: bad probe table at offset %zu of section %s (%s); skipped",
			     mod->path, off, UDT_TABLE_SECTION, strerror(-err));
			break;
		}
		pt.addr = mod->base + sh->sh_addr + off;
		err = pr__module_add_table(mod, &pt);
		if (err) {
			free(pt.copy);
			return err;
		}
		off += ((size_t)pt.t.hdr.total_sz + 7) & ~(size_t)7;
	}
	return 0;
}

int pr__module_add_table(struct pr_module *mod, const struct pr_ptable *pt)
{
	struct pr_ptable **nt = udt__reallocarray(mod->tables, mod->table_cnt + 1, sizeof(*nt));
	struct pr_ptable *copy = malloc(sizeof(*copy));

	if (nt)
		mod->tables = nt;
	if (!nt || !copy) {
		free(copy);
		return -ENOMEM;
	}
	*copy = *pt;
	mod->tables[mod->table_cnt++] = copy;
	return 0;
}

int pr__add_module(struct pr_proc *p, struct pr_module *mod)
{
	struct pr_module *copy;

	if (p->mod_cnt == p->mod_cap) {
		size_t ncap = p->mod_cap ? 2 * p->mod_cap : 16;
		struct pr_module **nm = udt__reallocarray(p->mods, ncap, sizeof(*nm));

		if (!nm)
			return -ENOMEM;
		p->mods = nm;
		p->mod_cap = ncap;
	}
	copy = malloc(sizeof(*copy));
	if (!copy)
		return -ENOMEM;
	*copy = *mod;
	p->mods[p->mod_cnt++] = copy;
	return 0;
}

void pr_proc_close_files(struct pr_proc *p)
{
	for (size_t i = 0; i < p->mod_cnt; i++)
		pr_module_close(p->mods[i]);
}

/* Free what mod holds (not mod itself). */
static void module_free(struct pr_module *mod)
{
	for (size_t i = 0; i < mod->table_cnt; i++) {
		free(mod->tables[i]->copy);
		free(mod->tables[i]);
	}
	free(mod->tables);
	pr_module_close(mod);
	free(mod->notes);
	free(mod->note_strs);
	free(mod->syms); /* the names are in the same allocation */
	free(mod->debug_path);
	free(mod->path);
	free(mod->file);
	memset(mod, 0, sizeof(*mod));
}

/* Forget every module of p. */
static void modules_free(struct pr_proc *p)
{
	for (size_t i = 0; p->mods && i < p->mod_cnt; i++) {
		module_free(p->mods[i]);
		free(p->mods[i]);
	}
	free(p->mods);
	p->mods = NULL;
	p->mod_cnt = p->mod_cap = 0;
}

/* Is sem the semaphore of a probe of one of mod's tables? */
static bool table_sem(const struct pr_module *mod, uint64_t sem)
{
	for (size_t k = 0; k < mod->table_cnt; k++) {
		const struct pr_ptable *pt = mod->tables[k];
		for (uint32_t i = 0; i < pt->t.hdr.probe_cnt; i++)
			if (pt->addr + pr_table_probe_off(&pt->t, i) +
				    (uint64_t)pr_table_probe(&pt->t, i)->sem_rel == sem)
				return true;
	}
	return false;
}

void pr_module_drop_own_notes(struct pr_module *mod)
{
	size_t n = 0;

	if (!mod->table_cnt && !mod->sdt)
		return;
	for (size_t i = 0; i < mod->note_cnt; i++) {
		const struct pr_note *no = &mod->notes[i];
		if (no->sem && (mod->sdt || table_sem(mod, no->sem)))
			continue;
		mod->notes[n++] = *no;
	}
	mod->note_cnt = n;
}

/*
 * Make a module of group gi when its file is an ELF object loaded as mapped.
 * Return: 0 (added or skipped), or -ENOMEM.
 */
static int add_object(struct pr_proc *p, struct scan *s, size_t gi)
{
	const struct group *g = &s->grps[gi];
	struct pr_module mod = { 0 };
	unsigned char ident[SELFMAG];
	Elf *e = NULL;
	GElf_Ehdr eh;
	GElf_Shdr sh;
	Elf_Scn *scn;
	int fd = -1, err;
	const char *slash;

	err = open_group_file(p, s, g, &fd, &mod.file);
	if (err)
		return err == -ENOMEM ? err : 0;
	/* most non-ELF mappings (locale archives, caches) end here, cheaply */
	if (pread(fd, ident, SELFMAG, 0) != SELFMAG || memcmp(ident, ELFMAG, SELFMAG))
		goto out;
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh) ||
	    (eh.e_type != ET_EXEC && eh.e_type != ET_DYN))
		goto out;
	if (!place_object(e, &eh, s, gi, &mod.base, &mod.lo, &mod.hi))
		goto out;
	mod.path = strdup(g->path);
	if (!mod.path) {
		err = -ENOMEM;
		goto out;
	}
	slash = strrchr(mod.path, '/');
	mod.name = slash ? (char *)slash + 1 : mod.path;
	scn = find_section(e, UDT_TABLE_SECTION, &sh);
	if (scn) {
		err = read_tables(p, &mod, scn, &sh);
		if (err)
			goto out;
	}
	/* an object of ours (a -G table, SDT(9) providers) has notes too: their sites are
	   its tables' (the SDT(9) ones the runtime registers); others beside them are
	   <sys/sdt.h>'s, which are kept */
	mod.sdt = find_section(e, UDT_SDT_SECTION, &sh) != NULL;
	err = pr__notes_read(p, &mod, e);
	if (err)
		goto out;
	mod.ino = g->ino;
	mod.map_start = s->maps[g->low].start;
	err = pr__add_module(p, &mod);
	if (err)
		goto out;
	memset(&mod, 0, sizeof(mod));
out:
	module_free(&mod);
	if (e)
		elf_end(e);
	(void)close(fd);
	return err;
}

bool pr_proc_has_probes(const struct pr_proc *p)
{
	for (size_t i = 0; i < p->mod_cnt; i++)
		if (p->mods[i]->table_cnt || p->mods[i]->sdt || p->mods[i]->note_cnt)
			return true;
	return false;
}

int pr_file_providers(const char *path, char ***ret_names)
{
	struct pr_proc p = { 0 };
	struct pr_module mod = { 0 };
	char **v = NULL;
	size_t n = 0, cap = 0;
	unsigned char ident[SELFMAG];
	Elf *e = NULL;
	GElf_Ehdr eh;
	GElf_Shdr sh;
	int fd = open(path, O_RDONLY | O_CLOEXEC), err = 0;

	*ret_names = NULL;
	if (fd < 0)
		return -errno;
	(void)elf_version(EV_CURRENT);
	if (pread(fd, ident, SELFMAG, 0) != SELFMAG || memcmp(ident, ELFMAG, SELFMAG))
		goto out;
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh) ||
	    (eh.e_type != ET_EXEC && eh.e_type != ET_DYN))
		goto out;
	mod.path = udt__xstrdup(path);
	Elf_Scn *scn = find_section(e, UDT_TABLE_SECTION, &sh);
	if (scn && (err = read_tables(&p, &mod, scn, &sh)))
		goto out;
	for (size_t k = 0; k < mod.table_cnt; k++) {
		const struct pr_table *t = &mod.tables[k]->t;
		for (uint32_t i = 0; i < t->hdr.provider_cnt; i++)
			UDT__PUSH(v, n, cap, udt__xstrdup(pr_table_str(t, pr_table_provider(t, i)->name)));
	}
	/* SDT(9) providers (their names are the runtime's to give) and the runtime itself (whose
	   registry holds dynamic providers): any name */
	if (find_section(e, UDT_SDT_SECTION, &sh) || strstr(path, "libudtrace")) {
		UDT__PUSH(v, n, cap, udt__xstrdup("*"));
		goto out;
	}
	/* and those of its notes no table of ours has */
	if ((err = pr__notes_read(&p, &mod, e)))
		goto out;
	pr_module_drop_own_notes(&mod);
	for (size_t i = 0; i < mod.note_cnt; i++)
		if (!i || strcmp(mod.notes[i].prov, mod.notes[i - 1].prov))
			UDT__PUSH(v, n, cap, udt__xstrdup(mod.notes[i].prov));
out:
	module_free(&mod);
	modules_free(&p);
	if (e)
		elf_end(e);
	close(fd);
	if (err) {
		for (size_t i = 0; i < n; i++)
			free(v[i]);
		free(v);
		return err;
	}
	*ret_names = v;
	return (int)n;
}

/* Whether we may read the target: 0, -ESRCH, -EPERM, or another -errno. */
static int check_access(pid_t pid, uint64_t addr)
{
	char b[8];
	struct iovec l = { b, sizeof(b) }, r = { (void *)(uintptr_t)addr, sizeof(b) };

	if (process_vm_readv(pid, &l, 1, &r, 1, 0) >= 0)
		return 0;
	/* allowed: the address only went away (or the target has no readable mapping) */
	if (errno == EFAULT)
		return 0;
	return -errno;
}

int pr_proc_open(struct pr_proc *p, pid_t pid)
{
	struct scan s = { 0 };
	char path[64], *maps = NULL;
	size_t maps_len;
	uint64_t probe_addr = 0;
	struct stat st;
	int err;

	if (!p)
		return -EINVAL;
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	if (pid <= 0)
		return grab_fail(p, -ESRCH);
	(void)elf_version(EV_CURRENT);
	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	if (stat(path, &st))
		return grab_fail(p, errno == ENOENT ? -ESRCH : -errno);
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	err = read_all(path, &maps, &maps_len);
	if (err) {
		err = err == -ENOENT ? -ESRCH : err;
		goto fail;
	}
	err = parse_maps(maps, &s, &probe_addr);
	if (err)
		goto fail;
	err = check_access(pid, probe_addr);
	if (err)
		goto fail;
	s.pagesz = (uint64_t)sysconf(_SC_PAGESIZE);
	err = group_maps(&s);
	if (err)
		goto fail;
	for (size_t g = 0; g < s.grp_cnt; g++) {
		err = add_object(p, &s, g);
		if (err)
			goto fail;
	}
	goto out;
fail:
	modules_free(p);
	p->errmsg[0] = '\0';
	grab_fail(p, err);
out:
	scan_free(&s);
	free(maps);
	return err;
}

/* Is group gi of s the object of a module p already has (the same load of the same file)? */
static struct pr_module *known_object(struct pr_proc *p, const struct scan *s, size_t gi)
{
	const struct group *g = &s->grps[gi];

	for (size_t i = 0; i < p->mod_cnt; i++) {
		struct pr_module *m = p->mods[i];
		if (!m->gone && m->ino == g->ino && m->map_start == s->maps[g->low].start &&
		    m->path && !strcmp(m->path, g->path))
			return m;
	}
	return NULL;
}

int pr_proc_rescan(struct pr_proc *p)
{
	struct scan s = { 0 };
	char path[64], *maps = NULL;
	size_t maps_len, old_cnt = p->mod_cnt;
	uint64_t probe_addr = 0;
	bool *seen = NULL;
	int err;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)p->pid);
	err = read_all(path, &maps, &maps_len);
	if (err) {
		err = err == -ENOENT ? -ESRCH : err;
		goto out;
	}
	s.pagesz = (uint64_t)sysconf(_SC_PAGESIZE);
	seen = calloc(old_cnt + 1, sizeof(*seen));
	err = !seen ? -ENOMEM : parse_maps(maps, &s, &probe_addr) ?: group_maps(&s);
	if (err)
		goto out;
	for (size_t g = 0; g < s.grp_cnt && !err; g++) {
		struct pr_module *m = known_object(p, &s, g);
		if (!m) {
			err = add_object(p, &s, g);
			continue;
		}
		for (size_t i = 0; i < old_cnt; i++)
			seen[i] |= p->mods[i] == m;
	}
	/* the objects that were mapped from a file and are no more (fileless ones live
	   and die with their tables: proc/registry.c) */
	for (size_t i = 0; i < old_cnt && !err; i++)
		if (!seen[i] && p->mods[i]->ino)
			p->mods[i]->gone = true;
out:
	free(seen);
	scan_free(&s);
	free(maps);
	return err;
}

bool pr_proc_maps_moved(struct pr_proc *p)
{
	char path[64], buf[128];
	ssize_t n;

	if (!p->statm_fd1) {
		snprintf(path, sizeof(path), "/proc/%d/statm", (int)p->pid);
		p->statm_fd1 = open(path, O_RDONLY | O_CLOEXEC) + 1;
	}
	if (p->statm_fd1 <= 0 || (n = pread(p->statm_fd1 - 1, buf, sizeof(buf) - 1, 0)) <= 0)
		return false;
	buf[n] = 0;
	uint64_t size = strtoull(buf, NULL, 10);
	if (size == p->statm_size)
		return false;
	p->statm_size = size;
	return true;
}

void pr_proc_maps_recheck(struct pr_proc *p)
{
	p->statm_size = 0;
}

bool pr_proc_loader_busy(struct pr_proc *p)
{
	int32_t state = 0;

	if (!p->r_debug && pr_proc_lookup(p, "_r_debug", &p->r_debug, NULL))
		p->r_debug = 1;
	/* (x86-64's struct r_debug: r_version, r_map, r_brk, then r_state; 0 is RT_CONSISTENT) */
	return p->r_debug != 1 && !pr_proc_read(p, p->r_debug + 24, &state, sizeof(state)) &&
	       state != 0;
}

bool pr_proc_shadow_stack(pid_t pid)
{
	char path[64], *status = NULL;
	size_t len;
	bool on = false;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (!udt__read_file(path, &status, &len)) {
		const char *f = strstr(status, "\nx86_Thread_features:");
		on = f && strstr(f, "shstk") && strstr(f, "shstk") < strchr(f + 1, '\n');
	}
	free(status);
	return on;
}

int pr_proc_refresh(struct pr_proc *p)
{
	pid_t pid;

	if (!p)
		return -EINVAL;
	pid = p->pid;
	pr_proc_close(p);
	return pr_proc_open(p, pid);
}

void pr_proc_close(struct pr_proc *p)
{
	if (!p)
		return;
	modules_free(p);
	if (p->statm_fd1 > 0)
		(void)close(p->statm_fd1 - 1);
	memset(p, 0, sizeof(*p));
}

static int xfer(const struct pr_proc *p, uint64_t addr, void *buf, size_t len, bool write)
{
	uint8_t *b = buf;

	if (!p || (!buf && len))
		return -EINVAL;
	if (addr > UINTPTR_MAX || len > UINTPTR_MAX - addr)
		return -EFAULT;
	while (len) {
		struct iovec l = { b, len }, r = { (void *)(uintptr_t)addr, len };
		ssize_t n = write ? process_vm_writev(p->pid, &l, 1, &r, 1, 0) :
				    process_vm_readv(p->pid, &l, 1, &r, 1, 0);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EFAULT;
		/* a partial transfer stops at an unmapped page: the next call says so */
		b += n;
		addr += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

int pr_proc_read(const struct pr_proc *p, uint64_t addr, void *buf, size_t len)
{
	return xfer(p, addr, buf, len, false);
}

int pr_proc_write(const struct pr_proc *p, uint64_t addr, const void *buf, size_t len)
{
	return xfer(p, addr, (void *)buf, len, true);
}

int pr_proc_put_back(const struct pr_proc *p, const uint64_t *addr, const uint8_t *orig,
		     size_t n, uint8_t was)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/mem", (int)p->pid);
	if ((fd = open(path, O_RDWR | O_CLOEXEC)) < 0)
		return -errno;
	for (size_t i = 0; i < n; i++) {
		uint8_t b;
		if (pread(fd, &b, 1, (off_t)addr[i]) == 1 && b == was)
			(void)!pwrite(fd, &orig[i], 1, (off_t)addr[i]);
	}
	(void)close(fd);
	return 0;
}

int pr_proc_read_str(const struct pr_proc *p, uint64_t addr, char *buf, size_t max)
{
	uint64_t ps = (uint64_t)sysconf(_SC_PAGESIZE);
	size_t got = 0;

	if (!p || !buf || !max)
		return -EINVAL;
	buf[0] = '\0';
	/* never read across a page boundary: the page after the string may be unmapped */
	while (got < max - 1) {
		uint64_t a = addr + got;
		size_t chunk = (size_t)(ps - (a & (ps - 1)));
		char *nul;
		int err;

		if (chunk > max - 1 - got)
			chunk = max - 1 - got;
		err = pr_proc_read(p, a, buf + got, chunk);
		if (err) {
			buf[got] = '\0';
			return err;
		}
		nul = memchr(buf + got, '\0', chunk);
		if (nul)
			return 0;
		got += chunk;
	}
	buf[max - 1] = '\0'; /* truncated */
	return 0;
}

struct pr_module *pr_proc_module_at(struct pr_proc *p, uint64_t addr)
{
	for (size_t i = 0; p && i < p->mod_cnt; i++)
		if (!p->mods[i]->gone && addr >= p->mods[i]->lo && addr < p->mods[i]->hi)
			return p->mods[i];
	return NULL;
}

struct pr_module *pr_proc_module(struct pr_proc *p, const char *name)
{
	for (size_t i = 0; p && name && i < p->mod_cnt; i++)
		if (!p->mods[i]->gone &&
		    (!strcmp(p->mods[i]->name, name) || !strcmp(p->mods[i]->path, name)))
			return p->mods[i];
	return NULL;
}

/* A symbol while loading: names still point into the ELF file. */
struct tsym {
	uint64_t addr, size;
	const char *name;
	size_t len;      /* of name, as kept ("f@@VERSION" of a .symtab: "f", the default version) */
	const char *ver; /* a non-default version, or NULL */
	bool func;
};

struct symload {
	struct tsym *v;
	size_t cnt, cap;
	size_t names_sz;
};

/* The names of the versions a file defines, by index (.gnu.version_d), or NULL. */
static const char **read_verdefs(Elf *e, size_t *ret_cnt)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(e, scn))) {
		Elf_Data *d;
		const char **names = NULL;
		size_t cnt = 0, off = 0;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_GNU_verdef)
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < sh.sh_info; i++) {
			GElf_Verdef vd;
			GElf_Verdaux va;

			if (!gelf_getverdef(d, (int)off, &vd) ||
			    !gelf_getverdaux(d, (int)(off + vd.vd_aux), &va))
				break;
			if (vd.vd_ndx >= cnt) {
				const char **nn =
					udt__reallocarray(names, vd.vd_ndx + 1u, sizeof(*nn));

				if (!nn)
					break;
				memset(nn + cnt, 0, (vd.vd_ndx + 1u - cnt) * sizeof(*nn));
				names = nn;
				cnt = vd.vd_ndx + 1u;
			}
			names[vd.vd_ndx] = elf_strptr(e, sh.sh_link, va.vda_name);
			if (!vd.vd_next)
				break;
			off += vd.vd_next;
		}
		*ret_cnt = cnt;
		return names;
	}
	*ret_cnt = 0;
	return NULL;
}

/* The versym data of the symbol table at index symndx, or NULL. */
static Elf_Data *find_versym(Elf *e, size_t symndx)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(e, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_GNU_versym && sh.sh_link == symndx)
			return elf_getdata(scn, NULL);
	return NULL;
}

static int collect_syms(Elf *e, Elf_Scn *scn, const GElf_Shdr *sh, uint64_t base,
			struct symload *sl)
{
	Elf_Data *d = elf_getdata(scn, NULL), *vs = NULL;
	const char **vnames = NULL;
	size_t vcnt = 0, n;
	int err = 0;

	if (!d || !sh->sh_entsize)
		return 0;
	if (sh->sh_type == SHT_DYNSYM) {
		vs = find_versym(e, elf_ndxscn(scn));
		if (vs)
			vnames = read_verdefs(e, &vcnt);
	}
	n = d->d_size / sh->sh_entsize;
	for (size_t i = 1; i < n; i++) {
		GElf_Sym sym;
		struct tsym t = { 0 };
		int type;

		if (!gelf_getsym(d, (int)i, &sym))
			break;
		type = GELF_ST_TYPE(sym.st_info);
		if (sym.st_shndx == SHN_UNDEF || sym.st_shndx == SHN_ABS ||
		    (sym.st_shndx >= SHN_LORESERVE && sym.st_shndx != SHN_XINDEX) ||
		    type == STT_SECTION || type == STT_FILE || type == STT_TLS)
			continue;
		t.name = elf_strptr(e, sh->sh_link, sym.st_name);
		if (!t.name || !t.name[0])
			continue;
		const char *dflt = sh->sh_type == SHT_SYMTAB ? strstr(t.name, "@@") : NULL;
		t.len = dflt ? (size_t)(dflt - t.name) : strlen(t.name);
		if (!t.len)
			continue;
		if (vs) {
			GElf_Versym v;

			/* a hidden (non-default) version: "name@VERSION" */
			if (gelf_getversym(vs, (int)i, &v) && (v & 0x8000)) {
				v &= 0x7fff;
				if (v >= vcnt || !vnames[v])
					continue;
				t.ver = vnames[v];
			}
		}
		t.addr = base + sym.st_value;
		t.size = sym.st_size;
		t.func = type == STT_FUNC || type == STT_GNU_IFUNC;
		if (sl->cnt == sl->cap) {
			struct tsym *nv;

			sl->cap = sl->cap ? 2 * sl->cap : 256;
			nv = udt__reallocarray(sl->v, sl->cap, sizeof(*nv));
			if (!nv) {
				err = -ENOMEM;
				break;
			}
			sl->v = nv;
		}
		sl->v[sl->cnt++] = t;
		sl->names_sz += t.len + 1 + (t.ver ? strlen(t.ver) + 1 : 0);
	}
	free(vnames);
	return err;
}

static size_t leading_underscores(const char *s)
{
	size_t n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/*
 * Address order; among aliases the one symbolize shows comes first: a function,
 * a sized one, fewer leading underscores, the default version.
 */
static int sym_cmp(const void *a, const void *b)
{
	const struct pr_sym *x = a, *y = b;
	size_t ux, uy;
	bool vx, vy;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->func != y->func)
		return x->func ? -1 : 1;
	if (!x->size != !y->size)
		return x->size ? -1 : 1;
	ux = leading_underscores(x->name);
	uy = leading_underscores(y->name);
	if (ux != uy)
		return ux < uy ? -1 : 1;
	vx = strchr(x->name, '@') != NULL;
	vy = strchr(y->name, '@') != NULL;
	if (vx != vy)
		return vx ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* The module's file, as pr_proc_open() opened it (or the plain path, if the target is gone). */
int pr_module_open(const struct pr_module *mod)
{
	int fd = udt__open_regular(mod->file, O_RDONLY, NULL);
	size_t fl, pl;

	if (fd >= 0 || !mod->path)
		return fd;
	fl = strlen(mod->file);
	pl = strlen(mod->path);
	/* "/proc/PID/root<path>": the target exited; its mount namespace is ours, most likely */
	if (fl > pl && !strcmp(mod->file + fl - pl, mod->path) && !strncmp(mod->file, "/proc/", 6))
		fd = udt__open_regular(mod->path, O_RDONLY, NULL);
	return fd < 0 ? -1 : fd;
}

/* Does e have a section of type type (SHT_SYMTAB...)? */
static bool has_section(Elf *e, GElf_Word type)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(e, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == type)
			return true;
	return false;
}

/* e's GNU build ID as hexadecimal digits into buf (at most 64 bytes of ID); false: none. */
static bool build_id(Elf *e, char *buf, size_t sz)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(e, scn))) {
		Elf_Data *d;
		GElf_Nhdr nh;
		size_t off = 0, name_off, desc_off;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE || !(d = elf_getdata(scn, NULL)))
			continue;
		while ((off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
			    memcmp((const char *)d->d_buf + name_off, "GNU", 4) || !nh.n_descsz ||
			    nh.n_descsz > 64 || 2 * (size_t)nh.n_descsz + 1 > sz)
				continue;
			const uint8_t *id = (const uint8_t *)d->d_buf + desc_off;
			for (size_t i = 0; i < nh.n_descsz; i++)
				snprintf(buf + 2 * i, 3, "%02x", id[i]);
			return true;
		}
	}
	return false;
}

/*
 * The separate debug file of mod's file e (Debian's -dbg and -dbgsym
 * packages: /usr/lib/debug/.build-id/xx/yyyy.debug, from its build ID), in
 * the process's file system: an open descriptor (its path in *ret_path, once),
 * or -1.
 */
static int debug_file(const struct pr_module *mod, Elf *e, char **ret_path)
{
	char id[130], path[4200], root[64] = "";
	int n;

	if (!build_id(e, id, sizeof(id)) || strlen(id) < 3)
		return -1;
	/* (mod->file is /proc/PID/root/<path> while the process lives) */
	if (!strncmp(mod->file, "/proc/", 6)) {
		const char *r = strstr(mod->file + 6, "/root/");
		if (r && (size_t)(r - mod->file) + 5 < sizeof(root))
			snprintf(root, sizeof(root), "%.*s", (int)(r - mod->file + 5), mod->file);
	}
	n = snprintf(path, sizeof(path), "%s/usr/lib/debug/.build-id/%.2s/%s.debug", root, id,
		     id + 2);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -1;
	int fd = udt__open_regular(path, O_RDONLY, NULL);
	/* the target exited (its root is gone): ours, as pr_module_open() takes the file's path
	   (a stack printed at the end of a -c command's trace: its libc's static functions) */
	if (fd < 0 && *root)
		fd = udt__open_regular(path + strlen(root), O_RDONLY, NULL);
	if (fd >= 0 && !*ret_path)
		*ret_path = udt__xstrdup(path + strlen(root));
	return fd < 0 ? -1 : fd;
}

/*
 * The ELF object in e's .gnu_debugdata section (MiniDebugInfo: an xz-compressed
 * file with a .symtab of the static functions, as Fedora ships its
 * libraries), decompressed into *ret_buf (malloc'ed; 64 MiB at most: the
 * file is hostile input), or NULL.
 */
static Elf *debugdata(Elf *e, void **ret_buf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t shstrndx;
	const char *name;

	*ret_buf = NULL;
	if (elf_getshdrstrndx(e, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(e, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(name = elf_strptr(e, shstrndx, sh.sh_name)) || strcmp(name, ".gnu_debugdata"))
			continue;
		Elf_Data *d = elf_rawdata(scn, NULL);
		if (!d || !d->d_buf || !d->d_size)
			return NULL;
		size_t cap = d->d_size * 8 < 1 << 20 ? 1 << 20 : d->d_size * 8;
		for (;;) {
			uint64_t memlimit = 128u << 20;
			size_t in = 0, out = 0;
			uint8_t *buf = malloc(cap);
			if (!buf)
				return NULL;
			lzma_ret r = lzma_stream_buffer_decode(&memlimit, 0, NULL, d->d_buf, &in,
							       d->d_size, buf, &out, cap);
			if (r == LZMA_OK || r == LZMA_STREAM_END) {
				Elf *de = elf_memory((char *)buf, out);
				if (de && elf_kind(de) == ELF_K_ELF) {
					*ret_buf = buf;
					return de;
				}
				if (de)
					elf_end(de);
			}
			free(buf);
			if (r != LZMA_BUF_ERROR || cap >= 64u << 20)
				return NULL;
			cap *= 4;
		}
	}
	return NULL;
}

/* Add the .symtab of file e (a debug file of mod's: separate, or MiniDebugInfo) to sl. */
static int debug_syms(Elf *e, const struct pr_module *mod, struct symload *sl)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	int err = 0;

	while (!err && (scn = elf_nextscn(e, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
			err = collect_syms(e, scn, &sh, mod->base, sl);
	return err;
}

/* Load a module's symbols (see the design comment). 0, or -ENOMEM; a missing file gives none. */
static int load_syms(struct pr_module *mod)
{
	struct symload sl = { 0 };
	struct pr_sym *syms = NULL;
	Elf_Scn *scn = NULL;
	Elf *e = NULL, *de = NULL;
	void *dbuf = NULL;
	GElf_Shdr sh;
	size_t cnt = 0;
	char *names;
	int fd = -1, dfd = -1, err = 0;

	if (mod->syms_loaded)
		return 0;
	(void)elf_version(EV_CURRENT);
	if (!mod->file || (fd = pr_module_open(mod)) < 0)
		goto done;
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF)
		goto done;
	while ((scn = elf_nextscn(e, scn))) {
		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		err = collect_syms(e, scn, &sh, mod->base, &sl);
		if (err)
			goto out;
	}
	/* a stripped file's static functions, from its debug file, as gdb finds them, else
	   from its MiniDebugInfo */
	mod->syms_from = has_section(e, SHT_SYMTAB) ? ".symtab" : ".dynsym";
	if (!has_section(e, SHT_SYMTAB) && (dfd = debug_file(mod, e, &mod->debug_path)) >= 0 &&
	    (de = elf_begin(dfd, ELF_C_READ_MMAP, NULL)) && elf_kind(de) == ELF_K_ELF) {
		mod->syms_from = ".dynsym and its debug file's .symtab";
		err = debug_syms(de, mod, &sl);
	} else if (!has_section(e, SHT_SYMTAB) && (de = debugdata(e, &dbuf))) {
		mod->syms_from = ".dynsym and .gnu_debugdata's .symtab (MiniDebugInfo)";
		err = debug_syms(de, mod, &sl);
	}
	if (err)
		goto out;
	if (!sl.cnt)
		goto done;
	/* the array, then the names: one allocation */
	if (sl.cnt > (SIZE_MAX - sl.names_sz) / sizeof(*syms)) {
		err = -ENOMEM;
		goto out;
	}
	syms = malloc(sl.cnt * sizeof(*syms) + sl.names_sz);
	if (!syms) {
		err = -ENOMEM;
		goto out;
	}
	names = (char *)(syms + sl.cnt);
	for (size_t i = 0; i < sl.cnt; i++) {
		const struct tsym *t = &sl.v[i];
		size_t nl = t->len;

		syms[i] = (struct pr_sym){
			.addr = t->addr, .size = t->size, .name = names, .func = t->func
		};
		memcpy(names, t->name, nl);
		names += nl;
		if (t->ver) {
			size_t vl = strlen(t->ver);

			*names++ = '@';
			memcpy(names, t->ver, vl);
			names += vl;
		}
		*names++ = '\0';
	}
	qsort(syms, sl.cnt, sizeof(*syms), sym_cmp);
	/* .dynsym repeats the global symbols of .symtab */
	for (size_t i = 0; i < sl.cnt; i++) {
		if (cnt && syms[cnt - 1].addr == syms[i].addr &&
		    !strcmp(syms[cnt - 1].name, syms[i].name))
			continue;
		syms[cnt++] = syms[i];
	}
done:
	mod->syms = syms;
	mod->sym_cnt = cnt;
	mod->syms_loaded = true;
	syms = NULL;
out:
	free(syms);
	free(sl.v);
	if (de)
		elf_end(de);
	free(dbuf);
	if (dfd >= 0)
		(void)close(dfd);
	if (e)
		elf_end(e);
	if (fd >= 0)
		(void)close(fd);
	return err;
}

int pr_proc_lookup(struct pr_proc *p, const char *sym, uint64_t *ret_addr,
		   struct pr_module **ret_mod)
{
	if (!p || !sym || !ret_addr)
		return -EINVAL;
	for (size_t m = 0; m < p->mod_cnt; m++) {
		struct pr_module *mod = p->mods[m];
		int err;

		if (mod->gone)
			continue;
		err = load_syms(mod);

		if (err)
			return err;
		for (size_t i = 0; i < mod->sym_cnt; i++) {
			if (strcmp(mod->syms[i].name, sym))
				continue;
			*ret_addr = mod->syms[i].addr;
			if (ret_mod)
				*ret_mod = mod;
			return 0;
		}
	}
	return -ENOENT;
}

int pr_proc_symbolize(struct pr_proc *p, uint64_t addr, struct pr_module **ret_mod,
		      const struct pr_sym **ret_sym)
{
	struct pr_module *mod = pr_proc_module_at(p, addr);
	int err;

	if (!mod)
		return -ENOENT;
	err = pr_module_symbolize(mod, addr, ret_sym);
	if (!err && ret_mod)
		*ret_mod = mod;
	return err;
}

size_t pr_module_sym_above(const struct pr_module *mod, uint64_t addr)
{
	size_t lo = 0, hi = mod->sym_cnt;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (mod->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return hi;
}

/*
 * The variable (a sized symbol that is no function's) that holds addr, of
 * those at or below it (mod->syms[0..hi)), the first of its aliases; NULL none.
 */
static const struct pr_sym *object_at(const struct pr_module *mod, size_t hi, uint64_t addr)
{
	size_t i = hi;

	while (i-- > 0 && (mod->syms[i].func || !mod->syms[i].size))
		;
	if (i == SIZE_MAX)
		return NULL;
	uint64_t at = mod->syms[i].addr;
	while (i > 0 && mod->syms[i - 1].addr == at)
		i--;
	for (; i < hi && mod->syms[i].addr == at; i++)
		if (!mod->syms[i].func && mod->syms[i].size && addr - at < mod->syms[i].size)
			return &mod->syms[i];
	return NULL;
}

int pr_module_symbolize(struct pr_module *mod, uint64_t addr, const struct pr_sym **ret_sym)
{
	const struct pr_sym *unsized = NULL;
	size_t hi, i;
	uint64_t at;
	bool sized = false;
	int err;

	err = load_syms(mod);
	if (err)
		return err;
	hi = pr_module_sym_above(mod, addr);
	/* the nearest function at or below addr, then the first of its aliases */
	for (i = hi; i-- > 0;)
		if (mod->syms[i].func)
			break;
	if (i == SIZE_MAX) {
		const struct pr_sym *obj = object_at(mod, hi, addr);
		if (!obj)
			return -ENOENT;
		i = (size_t)(obj - mod->syms);
		goto found;
	}
	at = mod->syms[i].addr;
	while (i > 0 && mod->syms[i - 1].addr == at)
		i--;
	for (; i < hi && mod->syms[i].addr == at; i++) {
		const struct pr_sym *s = &mod->syms[i];

		if (!s->func)
			continue;
		if (s->size) {
			sized = true;
			if (addr - at < s->size)
				goto found;
		} else if (!unsized) {
			unsized = s;
		}
	}
	/* a variable (the address of a global lock: plockstat's Lock) */
	const struct pr_sym *obj = object_at(mod, hi, addr);
	if (obj) {
		i = (size_t)(obj - mod->syms);
		goto found;
	}
	/* a size-0 symbol (assembly) extends to the next one, unless a sized alias says otherwise */
	if (!unsized || sized)
		return -ENOENT;
	i = (size_t)(unsized - mod->syms);
found:
	if (ret_sym)
		*ret_sym = &mod->syms[i];
	return 0;
}

int pr_module_sym_addr(struct pr_module *mod, const char *name, uint64_t *ret_addr)
{
	int err;

	if (!mod || !name || !ret_addr)
		return -EINVAL;
	err = load_syms(mod);
	if (err)
		return err;
	for (size_t i = 0; i < mod->sym_cnt; i++) {
		if (!strcmp(mod->syms[i].name, name)) {
			*ret_addr = mod->syms[i].addr;
			return 0;
		}
	}
	return -ENOENT;
}

int pr_module_func_range(struct pr_module *mod, const char *name, uint64_t *ret_lo,
			 uint64_t *ret_hi)
{
	int err;

	if (!mod || !name || !ret_lo || !ret_hi)
		return -EINVAL;
	err = load_syms(mod);
	if (err)
		return err;
	for (size_t i = 0; i < mod->sym_cnt; i++) {
		const struct pr_sym *s = &mod->syms[i];
		uint64_t end = mod->hi;

		if (!s->func || strcmp(s->name, name))
			continue;
		if (s->size) {
			end = s->addr + s->size;
		} else {
			/* up to the next function */
			for (size_t k = i + 1; k < mod->sym_cnt; k++) {
				if (mod->syms[k].func && mod->syms[k].addr > s->addr) {
					end = mod->syms[k].addr;
					break;
				}
			}
		}
		*ret_lo = s->addr;
		*ret_hi = end;
		return 0;
	}
	return -ENOENT;
}

struct pr_module *pr_proc_exe(struct pr_proc *p)
{
	char link[64], target[4096];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/%d/exe", (int)p->pid);
	n = readlink(link, target, sizeof(target) - 1);
	if (n <= 0)
		return NULL;
	target[n] = '\0';
	if (ends_with(target, (size_t)n, DELETED_SUFFIX))
		target[n - (ssize_t)strlen(DELETED_SUFFIX)] = '\0';
	for (size_t i = 0; i < p->mod_cnt; i++)
		if (!p->mods[i]->gone && p->mods[i]->path && !strcmp(p->mods[i]->path, target))
			return p->mods[i];
	return NULL;
}

/* Is s a function's name as the pid provider names functions: no hidden version, no cold part? */
static bool func_name_ok(const char *s)
{
	const char *c = strstr(s, ".cold");

	return !strchr(s, '@') && !(c && (!c[5] || c[5] == '.'));
}

size_t pr_module_funcs(struct pr_module *mod, struct pr_func **ret)
{
	struct pr_func *v = NULL;
	size_t n = 0, cap = 0;

	*ret = NULL;
	if (load_syms(mod))
		return 0;
	for (size_t i = 0; i < mod->sym_cnt;) {
		size_t j = i;
		/* the aliases at one address, the preferred first (sym_cmp) */
		while (j < mod->sym_cnt && mod->syms[j].addr == mod->syms[i].addr)
			j++;
		const struct pr_sym *s = &mod->syms[i];
		/* (a sized function, and a name the pid provider gives functions) */
		size_t k = i;
		while (k < j && !(mod->syms[k].func && mod->syms[k].size &&
				  func_name_ok(mod->syms[k].name)))
			k++;
		if (k < j && s->addr >= mod->lo && s->addr < mod->hi) {
			struct pr_func f = { .name = mod->syms[k].name, .addr = s->addr,
					     .size = mod->syms[k].size, .syms = &mod->syms[i],
					     .nsyms = j - i };
			UDT__PUSH(v, n, cap, f);
		}
		i = j;
	}
	*ret = v;
	return n;
}

int pr_proc_execname(const struct pr_proc *p, char *buf, size_t sz)
{
	char path[64], comm[64];
	ssize_t n;
	int fd;

	if (!p || !buf || !sz)
		return -EINVAL;
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)p->pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	do {
		n = read(fd, comm, sizeof(comm) - 1);
	} while (n < 0 && errno == EINTR);
	if (n < 0) {
		int err = -errno;

		(void)close(fd);
		return err;
	}
	(void)close(fd);
	comm[n] = '\0';
	comm[strcspn(comm, "\n")] = '\0';
	snprintf(buf, sz, "%s", comm);
	return 0;
}
