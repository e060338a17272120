/* SPDX-License-Identifier: MIT */
/*
 * Writing a dynamic provider's ELF shared object in memory.
 *
 * The object is what a tiny shared library with one SystemTap probe per
 * probe would be, built without a compiler or a linker: the runtime writes
 * it into a memfd and the dynamic linker loads it (dynprov.c), so that gdb,
 * perf and bpftrace, which read probes from the files of a process's
 * objects, see probes declared at run time. Layout (x86-64, ET_DYN, load
 * address 0):
 *
 *	page 0, R+X   ELF header, program headers (PT_LOAD x2, PT_DYNAMIC,
 *	              PT_GNU_STACK), .hash, .dynsym (the null symbol), .dynstr
 *	              (the soname), .text (a site per probe: nop; ret, padded
 *	              to 8 bytes with int3), .stapsdt.base (1 byte)
 *	next page, RW .dynamic, .data (the dispatch pointer), .probes (the
 *	              semaphores, 2 bytes each, in the file so that uprobes'
 *	              reference counters can address them)
 *	not loaded    .note.stapsdt (a v3 note per site), .shstrtab, section
 *	              headers
 *
 * The notes give each argument as the calling convention passes it to the
 * site (dynprov.c calls it through libffi with the probe's types): the
 * first six in %rdi %rsi %rdx %rcx %r8 %r9, the others on the stack, at
 * 8(%rsp), 16(%rsp)... at the site's first instruction; the size is the
 * type's, negative for signed types. The note's base is .stapsdt.base's own
 * address, so readers that adjust for prelinking adjust by 0.
 *
 * Nothing needs relocating: the object has no relocation, no symbol but the
 * null one and no dependency; glibc accepts it with DT_HASH, DT_STRTAB,
 * DT_SYMTAB, DT_STRSZ, DT_SYMENT and DT_SONAME. PT_GNU_STACK keeps the
 * stack non-executable (without it, loading the object would ask for an
 * executable stack).
 */
#include "runtime/elfmem.h"

#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PAGE 4096u
#define SITE_SZ 8u
#define ALIGN(x, a) (((x) + ((a) - 1)) & ~(size_t)((a) - 1))

#if defined(__x86_64__)
int rt_elf_supported(void)
{
	return 1;
}

/* Sections, in file order; the index is the section header's. */
enum { S_NULL, S_HASH, S_DYNSYM, S_DYNSTR, S_TEXT, S_BASE, S_DYNAMIC, S_DATA, S_PROBES, S_NOTE,
       S_SHSTRTAB, S_CNT };

static const char *const sec_names[S_CNT] = {
	"", ".hash", ".dynsym", ".dynstr", ".text", ".stapsdt.base", ".dynamic", ".data",
	".probes", ".note.stapsdt", ".shstrtab",
};

/* The note's argument string for one probe: "-2@%rsi 8@16(%rsp) ...". */
static size_t arg_string(const struct rt_elf_probe *p, char *buf, size_t sz)
{
	static const char *const regs[6] = { "%rdi", "%rsi", "%rdx", "%rcx", "%r8", "%r9" };
	size_t o = 0;

	buf[0] = '\0';
	for (uint32_t i = 0; i < p->narg && o < sz; i++) {
		int n;

		if (i < 6)
			n = snprintf(buf + o, sz - o, "%s%d@%s", i ? " " : "", p->argsz[i], regs[i]);
		else
			n = snprintf(buf + o, sz - o, " %d@%u(%%rsp)", p->argsz[i], 8 * (i - 5));
		if (n < 0)
			break;
		o += (size_t)n;
	}
	return o < sz ? o : sz - 1;
}

/*
 * The size of a probe's note's descriptor: exactly its contents, since gdb
 * wants the argument string's NUL to be its last byte; the note is padded
 * to 4 bytes after it.
 */
static size_t desc_size(const char *provider, const struct rt_elf_probe *p, const char *args)
{
	return 3 * 8 + strlen(provider) + 1 + strlen(p->name) + 1 + strlen(args) + 1;
}

static size_t note_size(const char *provider, const struct rt_elf_probe *p, const char *args)
{
	return 12 + 8 + ALIGN(desc_size(provider, p, args), 4);
}

int rt_elf_build(const char *provider, const char *soname, const struct rt_elf_probe *probes,
		 size_t n, struct rt_elf *ret)
{
	Elf64_Shdr sh[S_CNT];
	char (*args)[256] = NULL;
	size_t notes_sz = 0, shstr_sz = 0, off;
	struct rt_elf e = { 0 };
	uint8_t *b;
	int err = -ENOMEM;

	memset(sh, 0, sizeof(sh));
	for (size_t i = 0; i < n; i++)
		if (probes[i].narg > 12)
			return -EINVAL;
	args = calloc(n ? n : 1, sizeof(*args));
	e.site = calloc(n ? n : 1, sizeof(*e.site));
	e.sem = calloc(n ? n : 1, sizeof(*e.sem));
	if (!args || !e.site || !e.sem)
		goto fail;
	for (size_t i = 0; i < n; i++) {
		arg_string(&probes[i], args[i], sizeof(args[i]));
		notes_sz += note_size(provider, &probes[i], args[i]);
	}
	for (int s = 0; s < S_CNT; s++)
		shstr_sz += strlen(sec_names[s]) + 1;

	/* Lay the sections out: addresses equal file offsets. */
	off = sizeof(Elf64_Ehdr) + 4 * sizeof(Elf64_Phdr);
	off = ALIGN(off, 8);
	sh[S_HASH] = (Elf64_Shdr){ .sh_type = SHT_HASH, .sh_flags = SHF_ALLOC, .sh_offset = off,
				   .sh_size = 4 * 4, .sh_link = S_DYNSYM, .sh_addralign = 8,
				   .sh_entsize = 4 };
	off += 16;
	sh[S_DYNSYM] = (Elf64_Shdr){ .sh_type = SHT_DYNSYM, .sh_flags = SHF_ALLOC,
				     .sh_offset = off, .sh_size = sizeof(Elf64_Sym),
				     .sh_link = S_DYNSTR, .sh_info = 1, .sh_addralign = 8,
				     .sh_entsize = sizeof(Elf64_Sym) };
	off += sizeof(Elf64_Sym);
	sh[S_DYNSTR] = (Elf64_Shdr){ .sh_type = SHT_STRTAB, .sh_flags = SHF_ALLOC,
				     .sh_offset = off, .sh_size = 1 + strlen(soname) + 1,
				     .sh_addralign = 1 };
	off += sh[S_DYNSTR].sh_size;
	off = ALIGN(off, 16);
	sh[S_TEXT] = (Elf64_Shdr){ .sh_type = SHT_PROGBITS, .sh_flags = SHF_ALLOC | SHF_EXECINSTR,
				   .sh_offset = off, .sh_size = n * SITE_SZ, .sh_addralign = 16 };
	off += n * SITE_SZ;
	sh[S_BASE] = (Elf64_Shdr){ .sh_type = SHT_PROGBITS, .sh_flags = SHF_ALLOC,
				   .sh_offset = off, .sh_size = 1, .sh_addralign = 1 };
	off += 1;
	size_t rx_end = off;
	off = ALIGN(off, PAGE);
	size_t rw_start = off;
	sh[S_DYNAMIC] = (Elf64_Shdr){ .sh_type = SHT_DYNAMIC, .sh_flags = SHF_ALLOC | SHF_WRITE,
				      .sh_offset = off, .sh_size = 7 * sizeof(Elf64_Dyn),
				      .sh_link = S_DYNSTR, .sh_addralign = 8,
				      .sh_entsize = sizeof(Elf64_Dyn) };
	off += sh[S_DYNAMIC].sh_size;
	sh[S_DATA] = (Elf64_Shdr){ .sh_type = SHT_PROGBITS, .sh_flags = SHF_ALLOC | SHF_WRITE,
				   .sh_offset = off, .sh_size = 8, .sh_addralign = 8 };
	off += 8;
	sh[S_PROBES] = (Elf64_Shdr){ .sh_type = SHT_PROGBITS, .sh_flags = SHF_ALLOC | SHF_WRITE,
				     .sh_offset = off, .sh_size = n ? 2 * n : 2, .sh_addralign = 2 };
	off += sh[S_PROBES].sh_size;
	size_t rw_end = off;
	off = ALIGN(off, 4);
	sh[S_NOTE] = (Elf64_Shdr){ .sh_type = SHT_NOTE, .sh_offset = off, .sh_size = notes_sz,
				   .sh_addralign = 4 };
	off += notes_sz;
	sh[S_SHSTRTAB] = (Elf64_Shdr){ .sh_type = SHT_STRTAB, .sh_offset = off,
				       .sh_size = shstr_sz, .sh_addralign = 1 };
	off += shstr_sz;
	off = ALIGN(off, 8);
	size_t shoff = off;
	e.sz = off + S_CNT * sizeof(Elf64_Shdr);
	for (int s = 1; s < S_CNT; s++)
		if (sh[s].sh_flags & SHF_ALLOC)
			sh[s].sh_addr = sh[s].sh_offset;

	b = e.buf = calloc(1, e.sz);
	if (!b)
		goto fail;

	/* The headers. */
	Elf64_Ehdr *eh = (Elf64_Ehdr *)b;
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_ident[EI_OSABI] = ELFOSABI_SYSV;
	eh->e_type = ET_DYN;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_phoff = sizeof(Elf64_Ehdr);
	eh->e_shoff = shoff;
	eh->e_ehsize = sizeof(Elf64_Ehdr);
	eh->e_phentsize = sizeof(Elf64_Phdr);
	eh->e_phnum = 4;
	eh->e_shentsize = sizeof(Elf64_Shdr);
	eh->e_shnum = S_CNT;
	eh->e_shstrndx = S_SHSTRTAB;
	Elf64_Phdr *ph = (Elf64_Phdr *)(b + eh->e_phoff);
	ph[0] = (Elf64_Phdr){ .p_type = PT_LOAD, .p_flags = PF_R | PF_X, .p_offset = 0,
			      .p_vaddr = 0, .p_paddr = 0, .p_filesz = rx_end, .p_memsz = rx_end,
			      .p_align = PAGE };
	ph[1] = (Elf64_Phdr){ .p_type = PT_LOAD, .p_flags = PF_R | PF_W, .p_offset = rw_start,
			      .p_vaddr = rw_start, .p_paddr = rw_start,
			      .p_filesz = rw_end - rw_start, .p_memsz = rw_end - rw_start,
			      .p_align = PAGE };
	ph[2] = (Elf64_Phdr){ .p_type = PT_DYNAMIC, .p_flags = PF_R | PF_W,
			      .p_offset = sh[S_DYNAMIC].sh_offset,
			      .p_vaddr = sh[S_DYNAMIC].sh_addr, .p_paddr = sh[S_DYNAMIC].sh_addr,
			      .p_filesz = sh[S_DYNAMIC].sh_size, .p_memsz = sh[S_DYNAMIC].sh_size,
			      .p_align = 8 };
	ph[3] = (Elf64_Phdr){ .p_type = PT_GNU_STACK, .p_flags = PF_R | PF_W, .p_align = 16 };

	/* .hash: one bucket, one chain entry (the null symbol); .dynsym: the null symbol. */
	uint32_t hash[4] = { 1, 1, 0, 0 };
	memcpy(b + sh[S_HASH].sh_offset, hash, sizeof(hash));
	memcpy(b + sh[S_DYNSTR].sh_offset + 1, soname, strlen(soname));

	/* .text: the sites */
	for (size_t i = 0; i < n; i++) {
		uint8_t *site = b + sh[S_TEXT].sh_offset + i * SITE_SZ;

		memset(site, 0xcc, SITE_SZ);
		site[0] = 0x90; /* nop: where tracers put their breakpoint */
		site[1] = 0xc3; /* ret */
		e.site[i] = sh[S_TEXT].sh_addr + i * SITE_SZ;
		e.sem[i] = sh[S_PROBES].sh_addr + 2 * i;
	}
	e.dispatch = sh[S_DATA].sh_addr;

	/* .dynamic */
	Elf64_Dyn *dyn = (Elf64_Dyn *)(b + sh[S_DYNAMIC].sh_offset);
	dyn[0] = (Elf64_Dyn){ DT_HASH, { sh[S_HASH].sh_addr } };
	dyn[1] = (Elf64_Dyn){ DT_STRTAB, { sh[S_DYNSTR].sh_addr } };
	dyn[2] = (Elf64_Dyn){ DT_SYMTAB, { sh[S_DYNSYM].sh_addr } };
	dyn[3] = (Elf64_Dyn){ DT_STRSZ, { sh[S_DYNSTR].sh_size } };
	dyn[4] = (Elf64_Dyn){ DT_SYMENT, { sizeof(Elf64_Sym) } };
	dyn[5] = (Elf64_Dyn){ DT_SONAME, { 1 } };
	dyn[6] = (Elf64_Dyn){ DT_NULL, { 0 } };

	/* .note.stapsdt */
	uint8_t *np = b + sh[S_NOTE].sh_offset;
	for (size_t i = 0; i < n; i++) {
		size_t nsz = note_size(provider, &probes[i], args[i]);
		uint32_t hdr[3] = { 8, (uint32_t)desc_size(provider, &probes[i], args[i]), 3 };
		uint64_t addrs[3] = { e.site[i], sh[S_BASE].sh_addr, e.sem[i] };
		uint8_t *d = np + 20;

		memcpy(np, hdr, sizeof(hdr));
		memcpy(np + 12, "stapsdt", 8);
		memcpy(d, addrs, sizeof(addrs));
		d += sizeof(addrs);
		d = (uint8_t *)stpcpy((char *)d, provider) + 1;
		d = (uint8_t *)stpcpy((char *)d, probes[i].name) + 1;
		strcpy((char *)d, args[i]);
		np += nsz;
	}

	/* .shstrtab and the section headers */
	char *str = (char *)b + sh[S_SHSTRTAB].sh_offset;
	size_t so = 0;
	for (int s = 0; s < S_CNT; s++) {
		sh[s].sh_name = (uint32_t)so;
		strcpy(str + so, sec_names[s]);
		so += strlen(sec_names[s]) + 1;
	}
	memcpy(b + shoff, sh, sizeof(sh));
	free(args);
	*ret = e;
	return 0;
fail:
	free(args);
	rt_elf_free(&e);
	return err;
}
#else
int rt_elf_supported(void)
{
	return 0;
}

int rt_elf_build(const char *provider, const char *soname, const struct rt_elf_probe *probes,
		 size_t n, struct rt_elf *ret)
{
	(void)provider;
	(void)soname;
	(void)probes;
	(void)n;
	(void)ret;
	return -ENOEXEC;
}
#endif

void rt_elf_free(struct rt_elf *e)
{
	if (!e)
		return;
	free(e->buf);
	free(e->site);
	free(e->sem);
	memset(e, 0, sizeof(*e));
}
