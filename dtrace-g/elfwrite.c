/* SPDX-License-Identifier: MIT */
/*
 * Writing the provider object with libelf.
 *
 * SystemTap's script writes C and runs $CC; we write the ELF relocatable
 * directly, which is fast (the whole of -G is a few milliseconds for 479
 * probes), needs no compiler at -G time and leaves no temporary file. The
 * object holds:
 *
 *   .probes          the semaphores: "unsigned short prov_probe_semaphore",
 *                    global, hidden (each executable or library its own), 2-aligned
 *   .bss             udt__dispatch, the runtime's entry point for this object:
 *                    weak and hidden, so several -G objects in one link share one
 *   .udtrace.table   the probe table (abi/probe_table.h), read-only; its only
 *                    outward references are PC-relative (R_X86_64_PC64), so it
 *                    needs no dynamic relocation in PIE or shared libraries
 *   .text            a constructor and a destructor, 22 bytes each:
 *                        lea   table(%rip), %rdi
 *                        mov   udt__register@GOTPCREL(%rip), %rax
 *                        test  %rax, %rax
 *                        je    1f
 *                        jmp   *%rax            (tail call)
 *                    1:  ret
 *                    with udt__register / udt__unregister weak undefined: without
 *                    the runtime they resolve to 0 and nothing happens
 *   .init_array / .fini_array   pointers to them
 *   .note.udtrace    an allocated note (owner "udtrace", type 2) whose 4-byte
 *                    descriptor is the table's address minus its own
 *                    (R_X86_64_PC32): a runtime loaded after the program
 *                    started (dtrace -p's injection) finds the table through it,
 *                    the constructor having found no runtime (docs/format.md §3)
 *   .note.GNU-stack  the object needs no executable stack
 *
 * A program without providers (CPython's configure probes -G with
 * "BEGIN{}") gets a valid object with nothing but the stack note.
 *
 * Only x86-64 objects are written for now; other machines are refused with a
 * clear error rather than a wrong object.
 */
#include "dtrace-g/internal.h"
#include "abi/probe_table.h"

#include <gelf.h>
#include <stdlib.h>
#include <string.h>

/* The table's note: namesz 8, descsz 4, type 2, "udtrace", the descriptor (relocated). */
static const uint8_t table_note[24] = {
	8, 0, 0, 0, 4, 0, 0, 0, UDT_NOTE_TABLE, 0, 0, 0,
	'u', 'd', 't', 'r', 'a', 'c', 'e', 0, 0, 0, 0, 0,
};
#define NOTE_DESC_OFF 20

/* One register/unregister stub; relocations at +3 (table) and +10 (function). */
static const uint8_t stub[22] = {
	0x48, 0x8d, 0x3d, 0, 0, 0, 0,   /* lea 0(%rip), %rdi */
	0x48, 0x8b, 0x05, 0, 0, 0, 0,   /* mov 0(%rip), %rax (GOTPCRELX) */
	0x48, 0x85, 0xc0,               /* test %rax, %rax */
	0x74, 0x02,                     /* je +2 */
	0xff, 0xe0,                     /* jmp *%rax */
	0xc3,                           /* ret */
};

#define STUB_SZ 32 /* the dtor starts 32 bytes in, keeping it aligned */

char *dg_semaphore_name(const struct dl_probe *pr)
{
	return udt__xasprintf("%s_%s_semaphore", pr->provider->name, pr->name);
}

/* Growable ELF string table. */
struct estr {
	struct udt_strbuf b;
};

static size_t estr_add(struct estr *s, const char *str)
{
	size_t off = s->b.len;

	if (!s->b.len)
		udt__sb_putc(&s->b, '\0');
	off = s->b.len;
	udt__sb_putn(&s->b, str, strlen(str) + 1);
	return off;
}

struct writer {
	Elf *elf;
	struct estr shstr, str;
	GElf_Sym *syms;
	size_t sym_cnt, sym_cap;
	char *err;
};

static Elf_Scn *new_section(struct writer *w, const char *name, uint32_t type, uint64_t flags,
			    const void *data, size_t sz, uint64_t align, uint64_t entsize)
{
	Elf_Scn *scn = elf_newscn(w->elf);
	GElf_Shdr sh;
	Elf_Data *d;

	if (!scn || !gelf_getshdr(scn, &sh))
		return NULL;
	sh.sh_name = (uint32_t)estr_add(&w->shstr, name);
	sh.sh_type = type;
	sh.sh_flags = flags;
	sh.sh_addralign = align;
	sh.sh_entsize = entsize;
	if (!gelf_update_shdr(scn, &sh))
		return NULL;
	d = elf_newdata(scn);
	if (!d)
		return NULL;
	d->d_buf = (void *)data;
	d->d_size = sz;
	d->d_align = align;
	d->d_type = ELF_T_BYTE;
	return scn;
}

static size_t add_sym(struct writer *w, const char *name, unsigned bind, unsigned type,
		      unsigned vis, size_t shndx, uint64_t value, uint64_t size)
{
	GElf_Sym s = { 0 };

	s.st_name = name ? (uint32_t)estr_add(&w->str, name) : 0;
	s.st_info = (unsigned char)GELF_ST_INFO(bind, type);
	s.st_other = (unsigned char)vis;
	s.st_shndx = (uint16_t)shndx;
	s.st_value = value;
	s.st_size = size;
	UDT__PUSH(w->syms, w->sym_cnt, w->sym_cap, s);
	return w->sym_cnt - 1;
}

static int fail(struct writer *w, const char *what)
{
	if (!w->err)
		w->err = udt__xasprintf("error: cannot write the object: %s: %s", what,
					elf_errmsg(-1));
	return -1;
}

/* A RELA section for target, owned by the caller (relas must outlive elf_update). */
static int add_rela(struct writer *w, const char *name, Elf_Scn *target, GElf_Rela *relas,
		    size_t cnt, size_t symtab_idx)
{
	Elf_Scn *scn = new_section(w, name, SHT_RELA, SHF_INFO_LINK, relas,
				   cnt * sizeof(GElf_Rela), 8, sizeof(GElf_Rela));
	GElf_Shdr sh;

	if (!scn || !gelf_getshdr(scn, &sh))
		return fail(w, name);
	sh.sh_link = (uint32_t)symtab_idx;
	sh.sh_info = (uint32_t)elf_ndxscn(target);
	if (!gelf_update_shdr(scn, &sh))
		return fail(w, name);
	elf_getdata(scn, NULL)->d_type = ELF_T_RELA;
	return 0;
}

int dg_elf_write(struct dl_program *p, const struct dg_probes *pp, const struct dg_table *t,
		 int fd, char **ret_err)
{
	struct writer w = { 0 };
	GElf_Ehdr eh;
	uint8_t *text = NULL, *probes = NULL;
	uint64_t *init_ptr = NULL, *fini_ptr = NULL;
	GElf_Rela *rtext = NULL, *rinit = NULL, *rfini = NULL, *rtab = NULL, *rnote = NULL;
	size_t *sem_sym = NULL;
	char **sem_names = NULL;
	int ret = -1;
	bool have_table = pp->provider_cnt > 0;

	if (dl_program_model(p) != DL_LP64) {
		*ret_err = udt__xstrdup("error: -G writes 64-bit (x86-64) objects only; -32 is "
					"accepted by -h but not by -G yet");
		return -1;
	}
	if (elf_version(EV_CURRENT) == EV_NONE) {
		*ret_err = udt__xasprintf("error: libelf: %s", elf_errmsg(-1));
		return -1;
	}
	w.elf = elf_begin(fd, ELF_C_WRITE, NULL);
	if (!w.elf || !gelf_newehdr(w.elf, ELFCLASS64) || !gelf_getehdr(w.elf, &eh)) {
		fail(&w, "ELF header");
		goto out;
	}
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_OSABI] = ELFOSABI_NONE;
	eh.e_type = ET_REL;
	eh.e_machine = EM_X86_64;
	eh.e_version = EV_CURRENT;
	if (!gelf_update_ehdr(w.elf, &eh)) {
		fail(&w, "ELF header");
		goto out;
	}
	add_sym(&w, NULL, STB_LOCAL, STT_NOTYPE, STV_DEFAULT, SHN_UNDEF, 0, 0);

	Elf_Scn *s_text = NULL, *s_init = NULL, *s_fini = NULL, *s_probes = NULL, *s_bss = NULL,
		*s_tab = NULL, *s_note = NULL;
	size_t y_text = 0, y_tab = 0;

	if (have_table) {
		text = udt__xcalloc(2 * STUB_SZ, 1);
		memcpy(text, stub, sizeof(stub));
		memcpy(text + STUB_SZ, stub, sizeof(stub));
		for (size_t i = sizeof(stub); i < STUB_SZ; i++)
			text[i] = 0xcc; /* int3 padding between the stubs */
		probes = udt__xcalloc(pp->cnt ? pp->cnt : 1, 2);
		init_ptr = udt__xcalloc(1, 8);
		fini_ptr = udt__xcalloc(1, 8);

		s_text = new_section(&w, ".text", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, text,
				     2 * STUB_SZ, 16, 0);
		s_init = new_section(&w, ".init_array", SHT_INIT_ARRAY, SHF_ALLOC | SHF_WRITE,
				     init_ptr, 8, 8, 8);
		s_fini = new_section(&w, ".fini_array", SHT_FINI_ARRAY, SHF_ALLOC | SHF_WRITE,
				     fini_ptr, 8, 8, 8);
		s_probes = new_section(&w, ".probes", SHT_PROGBITS, SHF_ALLOC | SHF_WRITE, probes,
				       pp->cnt * 2, 2, 0);
		s_bss = new_section(&w, ".bss", SHT_NOBITS, SHF_ALLOC | SHF_WRITE, NULL, 8, 8, 0);
		s_tab = new_section(&w, UDT_TABLE_SECTION, SHT_PROGBITS, SHF_ALLOC, t->blob.buf,
				    t->blob.len, 8, 0);
		s_note = new_section(&w, ".note.udtrace", SHT_NOTE, SHF_ALLOC, table_note,
				     sizeof(table_note), 4, 0);
		if (!s_text || !s_init || !s_fini || !s_probes || !s_bss || !s_tab || !s_note) {
			fail(&w, "sections");
			goto out;
		}
		y_text = add_sym(&w, NULL, STB_LOCAL, STT_SECTION, STV_DEFAULT,
				 elf_ndxscn(s_text), 0, 0);
		y_tab = add_sym(&w, NULL, STB_LOCAL, STT_SECTION, STV_DEFAULT,
				elf_ndxscn(s_tab), 0, 0);
		add_sym(&w, "udt__table_register", STB_LOCAL, STT_FUNC, STV_DEFAULT,
			elf_ndxscn(s_text), 0, sizeof(stub));
		add_sym(&w, "udt__table_unregister", STB_LOCAL, STT_FUNC, STV_DEFAULT,
			elf_ndxscn(s_text), STUB_SZ, sizeof(stub));
		add_sym(&w, "udt__table", STB_LOCAL, STT_OBJECT, STV_DEFAULT, elf_ndxscn(s_tab),
			0, t->blob.len);
	}
	Elf_Scn *s_stack = new_section(&w, ".note.GNU-stack", SHT_PROGBITS, 0, NULL, 0, 1, 0);
	if (!s_stack) {
		fail(&w, ".note.GNU-stack");
		goto out;
	}

	/* Globals follow the locals. */
	size_t first_global = w.sym_cnt;
	size_t y_dispatch = 0, y_reg = 0, y_unreg = 0;

	if (have_table) {
		sem_sym = udt__xcalloc(pp->cnt + 1, sizeof(*sem_sym));
		sem_names = udt__xcalloc(pp->cnt + 1, sizeof(*sem_names));
		for (size_t i = 0; i < pp->cnt; i++) {
			sem_names[i] = dg_semaphore_name(pp->v[i]);
			sem_sym[i] = add_sym(&w, sem_names[i], STB_GLOBAL, STT_OBJECT, STV_HIDDEN,
					     elf_ndxscn(s_probes), 2 * i, 2);
		}
		y_dispatch = add_sym(&w, "udt__dispatch", STB_WEAK, STT_OBJECT, STV_HIDDEN,
				     elf_ndxscn(s_bss), 0, 8);
		y_reg = add_sym(&w, "udt__register", STB_WEAK, STT_NOTYPE, STV_DEFAULT, SHN_UNDEF,
				0, 0);
		y_unreg = add_sym(&w, "udt__unregister", STB_WEAK, STT_NOTYPE, STV_DEFAULT,
				  SHN_UNDEF, 0, 0);
	}

	Elf_Scn *s_symtab = new_section(&w, ".symtab", SHT_SYMTAB, 0, NULL, 0, 8,
					sizeof(Elf64_Sym));
	if (!s_symtab) {
		fail(&w, ".symtab");
		goto out;
	}
	size_t symtab_idx = elf_ndxscn(s_symtab);

	if (have_table) {
		rtext = udt__xcalloc(4, sizeof(*rtext));
		rtext[0] = (GElf_Rela){ 3, GELF_R_INFO(y_tab, R_X86_64_PC32), -4 };
		rtext[1] = (GElf_Rela){ 10, GELF_R_INFO(y_reg, R_X86_64_REX_GOTPCRELX), -4 };
		rtext[2] = (GElf_Rela){ STUB_SZ + 3, GELF_R_INFO(y_tab, R_X86_64_PC32), -4 };
		rtext[3] = (GElf_Rela){ STUB_SZ + 10, GELF_R_INFO(y_unreg, R_X86_64_REX_GOTPCRELX),
					-4 };
		rinit = udt__xcalloc(1, sizeof(*rinit));
		rinit[0] = (GElf_Rela){ 0, GELF_R_INFO(y_text, R_X86_64_64), 0 };
		rfini = udt__xcalloc(1, sizeof(*rfini));
		rfini[0] = (GElf_Rela){ 0, GELF_R_INFO(y_text, R_X86_64_64), STUB_SZ };
		rnote = udt__xcalloc(1, sizeof(*rnote));
		rnote[0] = (GElf_Rela){ NOTE_DESC_OFF, GELF_R_INFO(y_tab, R_X86_64_PC32), 0 };
		rtab = udt__xcalloc(t->reloc_cnt + 1, sizeof(*rtab));
		for (size_t i = 0; i < t->reloc_cnt; i++) {
			size_t sym = t->relocs[i].target == DG_RELOC_DISPATCH
					     ? y_dispatch : sem_sym[t->relocs[i].index];
			rtab[i] = (GElf_Rela){ t->relocs[i].off, GELF_R_INFO(sym, R_X86_64_PC64), 0 };
		}
		if (add_rela(&w, ".rela.text", s_text, rtext, 4, symtab_idx) ||
		    add_rela(&w, ".rela.init_array", s_init, rinit, 1, symtab_idx) ||
		    add_rela(&w, ".rela.fini_array", s_fini, rfini, 1, symtab_idx) ||
		    add_rela(&w, ".rela" UDT_TABLE_SECTION, s_tab, rtab, t->reloc_cnt, symtab_idx) ||
		    add_rela(&w, ".rela.note.udtrace", s_note, rnote, 1, symtab_idx))
			goto out;
	}

	Elf_Scn *s_strtab = new_section(&w, ".strtab", SHT_STRTAB, 0, NULL, 0, 1, 0);
	Elf_Scn *s_shstr = new_section(&w, ".shstrtab", SHT_STRTAB, 0, NULL, 0, 1, 0);
	if (!s_strtab || !s_shstr) {
		fail(&w, "string tables");
		goto out;
	}
	if (!w.str.b.len)
		udt__sb_putc(&w.str.b, '\0');

	/* Now that every name is in, point the tables at their final contents. */
	Elf_Data *d = elf_getdata(s_symtab, NULL);
	GElf_Shdr sh;
	d->d_buf = w.syms;
	d->d_size = w.sym_cnt * sizeof(Elf64_Sym);
	d->d_type = ELF_T_SYM;
	if (!gelf_getshdr(s_symtab, &sh)) {
		fail(&w, ".symtab");
		goto out;
	}
	sh.sh_link = (uint32_t)elf_ndxscn(s_strtab);
	sh.sh_info = (uint32_t)first_global;
	if (!gelf_update_shdr(s_symtab, &sh)) {
		fail(&w, ".symtab");
		goto out;
	}
	d = elf_getdata(s_strtab, NULL);
	d->d_buf = w.str.b.buf;
	d->d_size = w.str.b.len;
	d = elf_getdata(s_shstr, NULL);
	d->d_buf = w.shstr.b.buf;
	d->d_size = w.shstr.b.len;
	if (!gelf_getehdr(w.elf, &eh)) {
		fail(&w, "ELF header");
		goto out;
	}
	eh.e_shstrndx = (uint16_t)elf_ndxscn(s_shstr); /* well below SHN_LORESERVE */
	if (!gelf_update_ehdr(w.elf, &eh)) {
		fail(&w, "section names");
		goto out;
	}
	/* GElf_Sym and Elf64_Sym share a layout; so do GElf_Rela and Elf64_Rela. */
	if (elf_update(w.elf, ELF_C_WRITE) < 0) {
		fail(&w, "elf_update");
		goto out;
	}
	ret = 0;
out:
	if (ret && ret_err)
		*ret_err = w.err ? w.err : udt__xstrdup("error: cannot write the object");
	else
		free(w.err);
	elf_end(w.elf);
	free(text);
	free(probes);
	free(init_ptr);
	free(fini_ptr);
	free(rtext);
	free(rinit);
	free(rfini);
	free(rtab);
	free(rnote);
	free(sem_sym);
	if (sem_names)
		for (size_t i = 0; i < pp->cnt; i++)
			free(sem_names[i]);
	free(sem_names);
	free(w.syms);
	udt__sb_reset(&w.str.b);
	udt__sb_reset(&w.shstr.b);
	return ret;
}

int dg_object(struct dl_program *p, const char *const *objs, size_t obj_cnt, int fd,
	      char **ret_err)
{
	struct dg_probes pp;
	struct dg_table t;
	uint16_t machine = 0;
	int ret = -1;

	memset(&t, 0, sizeof(t));
	if (elf_version(EV_CURRENT) == EV_NONE) {
		*ret_err = udt__xasprintf("error: libelf: %s", elf_errmsg(-1));
		return -1;
	}
	dg_probes_init(&pp, p);
	for (size_t i = 0; i < obj_cnt; i++)
		if (dg_scan_object(&pp, objs[i], &machine, ret_err))
			goto out;
	if (machine && machine != EM_X86_64) {
		*ret_err = udt__xstrdup("error: -G writes x86-64 objects only; the objects given "
					"are for another machine");
		goto out;
	}
	dg_table_build(p, &pp, &t);
	ret = dg_elf_write(p, &pp, &t, fd, ret_err);
out:
	dg_table_free(&t);
	dg_probes_free(&pp);
	return ret;
}
