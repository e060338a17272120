/* SPDX-License-Identifier: MIT */
/*
 * Reading the probe sites of the application's objects.
 *
 * Real builds hand -G the objects that fire the probes (PostgreSQL passes
 * every backend object, hundreds of them). Each is an ELF relocatable; each
 * probe site in it left a SystemTap note in .note.stapsdt:
 *
 *	namesz descsz type=3 "stapsdt\0" pad
 *	pc (address, relocated) base semaphore  provider\0 name\0 args\0
 *
 * In a relocatable object the pc field is zero with a relocation against the
 * code section (or the function's symbol); that relocation, looked up in the
 * symbol table, gives the enclosing function. For every note of one of the
 * program's providers, -G checks that the probe is declared and fired with
 * the declared number of arguments, and records the function for the probe
 * table. Notes of other providers are another -G's business and are skipped.
 *
 * Objects without notes are fine (most objects of a large program); so are
 * LTO objects, whose sites exist only once the link generates code. What is
 * not an ELF relocatable object of the expected machine is an error.
 */
#include "dtrace-g/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *fmt_err(const char *path, const char *fmt, const char *detail)
{
	return udt__xasprintf("%s: error: %s%s%s", path, fmt, detail ? ": " : "",
			      detail ? detail : "");
}

void dg_probes_init(struct dg_probes *pp, struct dl_program *p)
{
	size_t n = 0, cap = 0;

	memset(pp, 0, sizeof(*pp));
	pp->providers = dl_program_providers(p, &pp->provider_cnt);
	for (size_t i = 0; i < pp->provider_cnt; i++)
		for (size_t k = 0; k < pp->providers[i]->probe_cnt; k++)
			UDT__PUSH(pp->v, n, cap, (const struct dl_probe *)pp->providers[i]->probes[k]);
	pp->cnt = n;
	pp->funcs = udt__xcalloc(n + 1, sizeof(*pp->funcs));
	pp->func_cnt = udt__xcalloc(n + 1, sizeof(*pp->func_cnt));
	pp->func_cap = udt__xcalloc(n + 1, sizeof(*pp->func_cap));
}

void dg_probes_free(struct dg_probes *pp)
{
	for (size_t i = 0; i < pp->cnt; i++) {
		for (size_t k = 0; k < pp->func_cnt[i]; k++)
			free(pp->funcs[i][k]);
		free(pp->funcs[i]);
	}
	free(pp->funcs);
	free(pp->func_cnt);
	free(pp->func_cap);
	free(pp->v);
	memset(pp, 0, sizeof(*pp));
}

static void add_func(struct dg_probes *pp, size_t probe, const char *func)
{
	for (size_t i = 0; i < pp->func_cnt[probe]; i++)
		if (!strcmp(pp->funcs[probe][i], func))
			return;
	UDT__PUSH(pp->funcs[probe], pp->func_cnt[probe], pp->func_cap[probe], udt__xstrdup(func));
}

/* The number of arguments in a note's argument string ("-4@%eax 8@%rdx"). */
static size_t count_args(const char *s)
{
	size_t n = 0;
	bool in = false;

	for (; *s; s++) {
		if (*s == ' ') {
			in = false;
		} else if (!in) {
			in = true;
			n++;
		}
	}
	return n;
}

/* Symbol-table lookups for one object. */
struct objsyms {
	Elf *elf;
	Elf_Scn *symtab;
	GElf_Shdr symtab_hdr;
	Elf_Data *symdata;
	size_t sym_cnt;
};

/* The function containing (section shndx, offset off), or NULL. */
static const char *func_at(struct objsyms *os, size_t shndx, uint64_t off)
{
	const char *best = NULL;

	for (size_t i = 1; i < os->sym_cnt; i++) {
		GElf_Sym sym;

		if (!gelf_getsym(os->symdata, (int)i, &sym))
			continue;
		if (GELF_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_shndx != shndx)
			continue;
		if (off >= sym.st_value && off < sym.st_value + (sym.st_size ? sym.st_size : 1))
			best = elf_strptr(os->elf, os->symtab_hdr.sh_link, sym.st_name);
	}
	return best;
}

/* Find the relocation of the word at offset off of section scn_idx; the function it points into. */
static const char *site_function(struct objsyms *os, size_t scn_idx, uint64_t off)
{
	Elf_Scn *scn = NULL;

	if (!os->symdata)
		return NULL;
	while ((scn = elf_nextscn(os->elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_info != scn_idx ||
		    (sh.sh_type != SHT_RELA && sh.sh_type != SHT_REL))
			continue;
		if (!(d = elf_getdata(scn, NULL)) || !sh.sh_entsize)
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Rela r;
			GElf_Rel rl;
			GElf_Sym sym;

			if (sh.sh_type == SHT_RELA) {
				if (!gelf_getrela(d, (int)i, &r))
					continue;
			} else {
				if (!gelf_getrel(d, (int)i, &rl))
					continue;
				r.r_offset = rl.r_offset;
				r.r_info = rl.r_info;
				r.r_addend = 0;
			}
			if (r.r_offset != off)
				continue;
			if (!gelf_getsym(os->symdata, (int)GELF_R_SYM(r.r_info), &sym))
				return NULL;
			if (sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE)
				return NULL;
			if (GELF_ST_TYPE(sym.st_info) == STT_FUNC)
				return elf_strptr(os->elf, os->symtab_hdr.sh_link, sym.st_name);
			return func_at(os, sym.st_shndx, sym.st_value + (uint64_t)r.r_addend);
		}
	}
	return NULL;
}

static const struct dl_provider *find_provider(const struct dg_probes *pp, const char *name)
{
	for (size_t i = 0; i < pp->provider_cnt; i++)
		if (!strcmp(pp->providers[i]->name, name))
			return pp->providers[i];
	return NULL;
}

static int scan_notes(struct dg_probes *pp, const char *path, struct objsyms *os,
		      Elf_Scn *scn, char **ret_err)
{
	GElf_Shdr sh;
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t scn_idx = elf_ndxscn(scn);
	size_t addr_sz = gelf_getclass(os->elf) == ELFCLASS64 ? 8 : 4;
	size_t off = 0;
	GElf_Nhdr nh;
	size_t name_off, desc_off;

	if (!gelf_getshdr(scn, &sh) || !d) {
		*ret_err = fmt_err(path, "cannot read .note.stapsdt", elf_errmsg(-1));
		return -1;
	}
	while (off < d->d_size && (off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
		const char *desc = (const char *)d->d_buf + desc_off;
		const char *end = desc + nh.n_descsz;

		if (nh.n_type != 3 || nh.n_namesz != 8 ||
		    memcmp((const char *)d->d_buf + name_off, "stapsdt", 8))
			continue;
		if (nh.n_descsz < 3 * addr_sz + 3 || end[-1] != '\0') {
			*ret_err = fmt_err(path, "malformed probe note in .note.stapsdt", NULL);
			return -1;
		}
		const char *prov = desc + 3 * addr_sz;
		const char *name = prov + strlen(prov) + 1;
		const char *args = name < end ? name + strlen(name) + 1 : end;
		if (name >= end || args >= end) {
			*ret_err = fmt_err(path, "malformed probe note in .note.stapsdt", NULL);
			return -1;
		}
		const struct dl_provider *pv = find_provider(pp, prov);
		if (!pv)
			continue;
		const char *func = site_function(os, scn_idx, desc_off);
		size_t nargs = count_args(args);
		size_t idx = 0;
		const struct dl_probe *pr = NULL;

		for (size_t i = 0; i < pp->cnt; i++) {
			if (pp->v[i]->provider == pv && !strcmp(pp->v[i]->name, name)) {
				pr = pp->v[i];
				idx = i;
				break;
			}
		}
		if (!pr) {
			*ret_err = udt__xasprintf(
				"%s: error: %s%s%sfires probe %s:%s, which provider '%s' (%s:%d) "
				"does not declare", path, func ? "function '" : "",
				func ? func : "", func ? "' " : "", prov, name, prov, pv->loc.file,
				pv->loc.line);
			return -1;
		}
		if (nargs != pr->narg_cnt) {
			*ret_err = udt__xasprintf(
				"%s: error: %s%s%sfires probe %s:%s with %zu argument%s, but %s:%d "
				"declares %zu", path, func ? "function '" : "", func ? func : "",
				func ? "' " : "", prov, name, nargs, nargs == 1 ? "" : "s",
				pr->loc.file, pr->loc.line, pr->narg_cnt);
			return -1;
		}
		if (func)
			add_func(pp, idx, func);
	}
	return 0;
}

int dg_scan_object(struct dg_probes *pp, const char *path, uint16_t *machine, char **ret_err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct objsyms os = { 0 };
	GElf_Ehdr eh;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	int ret = -1;

	if (fd < 0) {
		*ret_err = fmt_err(path, "cannot open", strerror(errno));
		return -1;
	}
	os.elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!os.elf || elf_kind(os.elf) != ELF_K_ELF) {
		*ret_err = fmt_err(path, elf_kind(os.elf) == ELF_K_AR
					 ? "is an archive: give -G the objects themselves"
					 : "not an ELF object", NULL);
		goto out;
	}
	if (!gelf_getehdr(os.elf, &eh) || elf_getshdrstrndx(os.elf, &shstrndx) < 0) {
		*ret_err = fmt_err(path, "invalid ELF object", elf_errmsg(-1));
		goto out;
	}
	/* libelf reads what it can of a truncated file; refuse it instead. */
	struct stat st;
	size_t shnum;
	if (fstat(fd, &st) < 0 || elf_getshdrnum(os.elf, &shnum) < 0 || shnum == 0 ||
	    eh.e_shoff > (uint64_t)st.st_size ||
	    (uint64_t)shnum * eh.e_shentsize > (uint64_t)st.st_size - eh.e_shoff) {
		*ret_err = fmt_err(path, "invalid ELF object: truncated or corrupt section headers",
				   NULL);
		goto out;
	}
	if (eh.e_type != ET_REL) {
		*ret_err = fmt_err(path, "not a relocatable object: -G takes the .o files of the "
				   "program", NULL);
		goto out;
	}
	if (*machine && eh.e_machine != *machine) {
		*ret_err = fmt_err(path, "built for another machine than the other objects", NULL);
		goto out;
	}
	*machine = eh.e_machine;
	/* symbol table first: notes need it for function names */
	while ((scn = elf_nextscn(os.elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh)) {
			*ret_err = fmt_err(path, "invalid ELF section header", elf_errmsg(-1));
			goto out;
		}
		if (sh.sh_type != SHT_NOBITS && (sh.sh_offset > (uint64_t)st.st_size ||
						 sh.sh_size > (uint64_t)st.st_size - sh.sh_offset)) {
			*ret_err = fmt_err(path, "invalid ELF object: a section lies outside the file",
					   NULL);
			goto out;
		}
		if (sh.sh_type == SHT_SYMTAB) {
			os.symtab = scn;
			os.symtab_hdr = sh;
			os.symdata = elf_getdata(scn, NULL);
			os.sym_cnt = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
			if (!os.symdata) {
				*ret_err = fmt_err(path, "invalid symbol table", elf_errmsg(-1));
				goto out;
			}
		}
	}
	scn = NULL;
	while ((scn = elf_nextscn(os.elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		name = elf_strptr(os.elf, shstrndx, sh.sh_name);
		if (!name) {
			*ret_err = fmt_err(path, "invalid section name", elf_errmsg(-1));
			goto out;
		}
		if (strcmp(name, ".note.stapsdt"))
			continue;
		if (scan_notes(pp, path, &os, scn, ret_err))
			goto out;
	}
	ret = 0;
out:
	elf_end(os.elf);
	close(fd);
	return ret;
}
