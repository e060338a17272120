/* SPDX-License-Identifier: MIT */
/*
 * Probes from SystemTap notes: the sites of an object that has
 * .note.stapsdt but no udtrace probe table (a program built with
 * SystemTap's sys/sdt.h and dtrace -G: Debian's python3.11, libstdc++'s
 * libstdcxx provider). docs/notes.md has the whole story.
 *
 * A note (owner "stapsdt", type 3) describes one site: the address of its
 * nop, the address of .stapsdt.base as the linker saw it (for prelink's
 * adjustment), the address of its semaphore (0: none), then three strings:
 * the provider, the probe's name and its operands ("8@%r14 8@%rax
 * -4@%ebp"). This file reads them from the object's file and decodes the
 * operands into struct udt_note_arg (abi/note_arg.h), which the runtime
 * reads at the site.
 *
 * The file is another program's: hostile input. Each note section is read
 * through libelf's note iterator within its own size, and the notes' bytes
 * are copied once into one allocation per module; every string must end
 * within its note; an object holds at most MAX_NOTES notes, a site at most
 * UDT_NOTE_MAX_ARGS operands, an operand at most OPND_MAX characters. A
 * site must lie in an executable segment of its object and its semaphore
 * (two bytes) in a writable one, so that nothing we write for a note lands
 * outside the object that has it. A note that breaks a rule is skipped (the
 * first one said in p->errmsg); an operand this version cannot read keeps
 * its site, marked bad (listed, but refused when enabled).
 */
#include "proc/proc.h"

#include <errno.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

#define MAX_NOTES 65536
#define MAX_SECTION (16u << 20) /* bytes of a note section */
#define OPND_MAX 256
#define NOTE_OWNER "stapsdt"
#define NT_STAPSDT 3

/* -- Operands ------------------------------------------------------------------------------- */

struct regname {
	const char *name;
	uint8_t reg, width, shift;
};

/* The general registers and their parts, as AT&T syntax names them. */
static const struct regname regs[] = {
	{ "rax", UDT_NREG_RAX, 8, 0 }, { "eax", UDT_NREG_RAX, 4, 0 }, { "ax", UDT_NREG_RAX, 2, 0 },
	{ "al", UDT_NREG_RAX, 1, 0 },  { "ah", UDT_NREG_RAX, 1, 8 },
	{ "rcx", UDT_NREG_RCX, 8, 0 }, { "ecx", UDT_NREG_RCX, 4, 0 }, { "cx", UDT_NREG_RCX, 2, 0 },
	{ "cl", UDT_NREG_RCX, 1, 0 },  { "ch", UDT_NREG_RCX, 1, 8 },
	{ "rdx", UDT_NREG_RDX, 8, 0 }, { "edx", UDT_NREG_RDX, 4, 0 }, { "dx", UDT_NREG_RDX, 2, 0 },
	{ "dl", UDT_NREG_RDX, 1, 0 },  { "dh", UDT_NREG_RDX, 1, 8 },
	{ "rbx", UDT_NREG_RBX, 8, 0 }, { "ebx", UDT_NREG_RBX, 4, 0 }, { "bx", UDT_NREG_RBX, 2, 0 },
	{ "bl", UDT_NREG_RBX, 1, 0 },  { "bh", UDT_NREG_RBX, 1, 8 },
	{ "rsp", UDT_NREG_RSP, 8, 0 }, { "esp", UDT_NREG_RSP, 4, 0 }, { "sp", UDT_NREG_RSP, 2, 0 },
	{ "spl", UDT_NREG_RSP, 1, 0 },
	{ "rbp", UDT_NREG_RBP, 8, 0 }, { "ebp", UDT_NREG_RBP, 4, 0 }, { "bp", UDT_NREG_RBP, 2, 0 },
	{ "bpl", UDT_NREG_RBP, 1, 0 },
	{ "rsi", UDT_NREG_RSI, 8, 0 }, { "esi", UDT_NREG_RSI, 4, 0 }, { "si", UDT_NREG_RSI, 2, 0 },
	{ "sil", UDT_NREG_RSI, 1, 0 },
	{ "rdi", UDT_NREG_RDI, 8, 0 }, { "edi", UDT_NREG_RDI, 4, 0 }, { "di", UDT_NREG_RDI, 2, 0 },
	{ "dil", UDT_NREG_RDI, 1, 0 },
};

/* %rN, %rNd, %rNw, %rNb (and GAS's %rNl): r8 to r15. */
static bool numbered_reg(const char *s, struct regname *ret)
{
	char *end;
	unsigned long n;

	if (s[0] != 'r' || s[1] < '0' || s[1] > '9')
		return false;
	n = strtoul(s + 1, &end, 10);
	if (n < 8 || n > 15)
		return false;
	*ret = (struct regname){ s, (uint8_t)(UDT_NREG_R8 + (n - 8)), 8, 0 };
	if (!strcmp(end, "d"))
		ret->width = 4;
	else if (!strcmp(end, "w"))
		ret->width = 2;
	else if (!strcmp(end, "b") || !strcmp(end, "l"))
		ret->width = 1;
	else if (*end)
		return false;
	return true;
}

static bool general_reg(const char *s, struct regname *ret)
{
	for (size_t i = 0; i < UDT__ARRAY_SIZE(regs); i++) {
		if (!strcmp(regs[i].name, s)) {
			*ret = regs[i];
			return true;
		}
	}
	return numbered_reg(s, ret);
}

/* A register name of n characters at s (without its '%') into buf. */
static bool reg_token(const char *s, size_t n, char *buf, size_t bufsz)
{
	if (!n || n >= bufsz)
		return false;
	memcpy(buf, s, n);
	buf[n] = '\0';
	return true;
}

/* An integer: decimal, or 0x hex (as GAS reads it). */
static bool parse_int(const char *s, const char *end, int64_t *ret)
{
	char buf[32], *e;
	size_t n = (size_t)(end - s);
	bool neg = false;
	uint64_t v;

	if (!n || n >= sizeof(buf))
		return false;
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (buf[0] == '-' || buf[0] == '+') {
		neg = buf[0] == '-';
		memmove(buf, buf + 1, n);
	}
	if (buf[0] < '0' || buf[0] > '9')
		return false;
	errno = 0;
	v = strtoull(buf, &e, 0);
	if (errno || *e || v > (uint64_t)INT64_MAX + neg)
		return false;
	*ret = neg ? (int64_t)(0 - v) : (int64_t)v;
	return true;
}

static bool sym_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '.' || c == '$' || c == '@';
}

/*
 * A memory operand "disp(%base,%index,scale)", each part optional but the
 * parentheses' content, or "sym+off(%rip)". *ret_sym gets a symbol's name
 * (NUL-terminated in symbuf), which only a %rip base may have.
 */
static bool parse_mem(const char *s, const char *end, struct udt_note_arg *a, char *symbuf,
		      size_t symbuf_sz, bool *ret_sym)
{
	const char *paren = memchr(s, '(', (size_t)(end - s));
	const char *disp_end = paren ? paren : end;
	bool rip = false;

	*ret_sym = false;
	a->kind = UDT_NARG_MEM;
	a->reg = a->index = UDT_NREG_NONE;
	a->scale = 1;
	a->disp = 0;
	/* the displacement: numbers and at most one symbol, added or subtracted
	   ("-16", "sym", "sym+8", "8+sym", as GCC writes them) */
	for (const char *p = s; p < disp_end;) {
		bool neg = *p == '-';
		const char *t = p + (*p == '-' || *p == '+'), *q = t;
		int64_t v;

		if (p > s && *p != '-' && *p != '+')
			return false;
		while (q < disp_end && *q != '+' && *q != '-')
			q++;
		if (q == t)
			return false;
		if (*t >= '0' && *t <= '9') {
			if (!parse_int(t, q, &v) || __builtin_add_overflow(a->disp, neg ? -v : v,
									   &a->disp))
				return false;
		} else {
			if (neg || *ret_sym || (size_t)(q - t) >= symbuf_sz)
				return false;
			for (const char *c = t; c < q; c++)
				if (!sym_char(*c))
					return false;
			memcpy(symbuf, t, (size_t)(q - t));
			symbuf[q - t] = '\0';
			*ret_sym = true;
		}
		p = q;
	}
	if (!paren)
		return !*ret_sym && disp_end > s; /* an absolute address */
	if (end[-1] != ')')
		return false;
	/* the registers: "%base", "%base,%index", "%base,%index,scale", ",%index,scale" */
	const char *p = paren + 1, *close = end - 1;
	char name[8];
	struct regname r;
	for (int part = 0; p <= close && part < 3; part++) {
		const char *q = p;
		while (q < close && *q != ',')
			q++;
		if (part < 2 && q > p) {
			if (*p != '%' || !reg_token(p + 1, (size_t)(q - p - 1), name, sizeof(name)))
				return false;
			if (part == 0 && !strcmp(name, "rip")) {
				rip = true;
			} else if (!general_reg(name, &r) || r.width != 8) {
				return false; /* 32-bit addressing, or not a register */
			} else if (part == 0) {
				a->reg = r.reg;
			} else {
				a->index = r.reg;
			}
		} else if (part == 2) {
			int64_t sc;
			if (!parse_int(p, q, &sc) || (sc != 1 && sc != 2 && sc != 4 && sc != 8))
				return false;
			a->scale = (uint8_t)sc;
		}
		p = q + 1;
		if (q == close)
			break;
	}
	if (rip)
		return a->index == UDT_NREG_NONE && *ret_sym; /* resolved by the consumer */
	return !*ret_sym;
}

int pr_note_arg_parse(const char *s, size_t len, struct udt_note_arg *ret, char *symbuf,
		      size_t symbuf_sz, bool *ret_sym)
{
	const char *end = s + len, *at = memchr(s, '@', len), *op = s;
	struct udt_note_arg a = { .kind = UDT_NARG_NONE, .size = 8 };
	char name[8];
	struct regname r;
	bool sym = false;

	if (!len || len > OPND_MAX)
		return -EINVAL;
	if (at) {
		int64_t sz;
		if (!parse_int(s, at, &sz) || (sz != 1 && sz != 2 && sz != 4 && sz != 8 &&
					       sz != -1 && sz != -2 && sz != -4 && sz != -8))
			return -EINVAL;
		a.size = (int8_t)sz;
		op = at + 1;
	}
	if (op == end)
		return -EINVAL;
	if (*op == '$') {
		if (!parse_int(op + 1, end, &a.disp))
			return -EINVAL;
		a.kind = UDT_NARG_CONST;
	} else if (*op == '%') {
		if (!reg_token(op + 1, (size_t)(end - op - 1), name, sizeof(name)))
			return -EINVAL;
		if (general_reg(name, &r)) {
			a.kind = UDT_NARG_REG;
			a.reg = r.reg;
			a.width = r.width;
			a.shift = r.shift;
		} else if (!strncmp(name, "xmm", 3) && name[3]) {
			int64_t n;
			if (!parse_int(name + 3, name + strlen(name), &n) || n < 0 || n > 15)
				return -EINVAL;
			a.kind = UDT_NARG_XMM;
			a.reg = (uint8_t)n;
			a.width = 16;
		} else {
			return -EINVAL; /* %st, segment overrides ("%fs:..."), ... */
		}
	} else if (!parse_mem(op, end, &a, symbuf, symbuf_sz, &sym)) {
		return -EINVAL;
	}
	*ret = a;
	*ret_sym = sym;
	return 0;
}

/* -- Reading the notes ---------------------------------------------------------------------- */

/* The object's PT_LOAD segments, to place sites and semaphores. */
struct segs {
	GElf_Phdr *v;
	size_t cnt;
};

static bool in_segment(const struct segs *s, uint64_t addr, uint64_t len, bool exec)
{
	for (size_t i = 0; i < s->cnt; i++) {
		const GElf_Phdr *ph = &s->v[i];
		uint64_t sz = exec ? ph->p_filesz : ph->p_memsz;

		if (ph->p_type != PT_LOAD || !(ph->p_flags & (exec ? PF_X : PF_W)))
			continue;
		if (addr >= ph->p_vaddr && len <= sz && addr - ph->p_vaddr <= sz - len)
			return true;
	}
	return false;
}

/* What reading an object's notes collects: its sites and their strings, in one allocation. */
struct noteread {
	struct pr_proc *p;
	struct pr_module *mod;
	struct segs segs;
	uint64_t base_adj;        /* prelink: .stapsdt.base's address minus the note's */
	bool have_base;           /* the object has .stapsdt.base */
	uint64_t base_sec;
	char *strs;               /* the strings of every note kept */
	size_t strs_len, strs_cap;
	struct pr_note *notes;
	size_t cnt, cap;
	bool noted;               /* a skipped note was said in errmsg */
};

__attribute__((format(printf, 2, 3))) static void skip_note(struct noteread *r, const char *fmt,
							     ...)
{
	va_list ap;
	char why[256];

	if (r->noted || r->p->errmsg[0])
		return;
	r->noted = true;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	snprintf(r->p->errmsg, sizeof(r->p->errmsg), "%s: SystemTap note skipped: %s",
		 r->mod->path, why);
}

/* Copy n bytes of string s (and a NUL) into the strings; its offset. */
static size_t put_str(struct noteread *r, const char *s, size_t n)
{
	size_t off = r->strs_len;

	memcpy(r->strs + off, s, n);
	r->strs[off + n] = '\0';
	r->strs_len += n + 1;
	return off;
}

/* The string at *off within a note's descriptor of sz bytes: its length; false if unterminated. */
static bool desc_str(const char *desc, size_t sz, size_t *off, size_t *ret_len)
{
	const char *nul;

	if (*off >= sz)
		return false;
	nul = memchr(desc + *off, '\0', sz - *off);
	if (!nul)
		return false;
	*ret_len = (size_t)(nul - (desc + *off));
	*off += *ret_len + 1;
	return true;
}

/* One note's descriptor: a site, appended (strings as offsets until the end). */
static int read_note(struct noteread *r, const char *desc, size_t sz)
{
	struct pr_note n = { 0 };
	uint64_t pc, base, sem;
	size_t off = 24, plen, nlen, alen, poff, noff, aoff;

	if (sz < 24 + 3) {
		skip_note(r, "a descriptor of %zu bytes", sz);
		return 0;
	}
	memcpy(&pc, desc, 8);
	memcpy(&base, desc + 8, 8);
	memcpy(&sem, desc + 16, 8);
	poff = off;
	if (!desc_str(desc, sz, &off, &plen))
		goto bad;
	noff = off;
	if (!desc_str(desc, sz, &off, &nlen))
		goto bad;
	aoff = off;
	if (!desc_str(desc, sz, &off, &alen))
		goto bad;
	if (!plen || !nlen) {
		skip_note(r, "a site without a provider or a name");
		return 0;
	}
	if (r->have_base && base) {
		pc += r->base_sec - base;
		if (sem)
			sem += r->base_sec - base;
	}
	if (!in_segment(&r->segs, pc, 1, true)) {
		skip_note(r, "%s:%.*s: its site 0x%" PRIx64 " is not in the object's code",
			  desc + poff, (int)nlen, desc + noff, pc);
		return 0;
	}
	if (sem && (sem % 2 || !in_segment(&r->segs, sem, 2, false))) {
		skip_note(r, "%s:%.*s: its semaphore 0x%" PRIx64 " is not in the object's data",
			  desc + poff, (int)nlen, desc + noff, sem);
		return 0;
	}
	if (r->cnt == MAX_NOTES) {
		skip_note(r, "more than %d sites", MAX_NOTES);
		return 0;
	}
	n.pc = r->mod->base + pc;
	n.sem = sem ? r->mod->base + sem : 0;
	/* strings as offsets for now: the buffer is final only at the end */
	n.prov = (const char *)(uintptr_t)put_str(r, desc + poff, plen);
	n.name = (const char *)(uintptr_t)put_str(r, desc + noff, nlen);
	n.argstr = (const char *)(uintptr_t)put_str(r, desc + aoff, alen);
	/* the operands, space-separated */
	const char *s = desc + aoff, *end = s + alen;
	while (s < end && !n.bad) {
		while (s < end && *s == ' ')
			s++;
		if (s == end)
			break;
		const char *e = memchr(s, ' ', (size_t)(end - s));
		char symbuf[OPND_MAX + 1];
		bool sym;
		e = e ? e : end;
		if (n.arg_cnt == UDT_NOTE_MAX_ARGS) {
			n.bad = true;
			break;
		}
		if (pr_note_arg_parse(s, (size_t)(e - s), &n.args[n.arg_cnt], symbuf,
				      sizeof(symbuf), &sym)) {
			n.bad = true;
			n.args[n.arg_cnt] = (struct udt_note_arg){ .kind = UDT_NARG_NONE, .size = 8 };
		} else if (sym) {
			n.arg_sym[n.arg_cnt] =
				(const char *)(uintptr_t)(put_str(r, symbuf, strlen(symbuf)) + 1);
		}
		n.arg_cnt++;
		s = e;
	}
	UDT__PUSH(r->notes, r->cnt, r->cap, n);
	return 0;
bad:
	skip_note(r, "a string runs past the end of its note");
	return 0;
}

/* The notes of one SHT_NOTE section. */
static int read_section(struct noteread *r, Elf_Scn *scn)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t off = 0, name_off, desc_off;
	GElf_Nhdr nh;

	if (!d || !d->d_buf)
		return 0;
	if (d->d_size > MAX_SECTION) {
		skip_note(r, "a note section of %zu bytes", d->d_size);
		return 0;
	}
	/* room for every string of the section's notes, and a symbol per operand */
	size_t need = 2 * d->d_size + 16;
	if (r->strs_cap - r->strs_len < need) {
		char *ns;
		if (need > SIZE_MAX / 2 - r->strs_cap)
			return -ENOMEM;
		ns = realloc(r->strs, r->strs_cap + need);
		if (!ns)
			return -ENOMEM;
		r->strs = ns;
		r->strs_cap += need;
	}
	while ((off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
		const char *name = (const char *)d->d_buf + name_off;

		if (nh.n_type != NT_STAPSDT || nh.n_namesz != sizeof(NOTE_OWNER) ||
		    memcmp(name, NOTE_OWNER, sizeof(NOTE_OWNER)))
			continue;
		int err = read_note(r, (const char *)d->d_buf + desc_off, nh.n_descsz);
		if (err)
			return err;
	}
	return 0;
}

int pr__notes_read(struct pr_proc *p, struct pr_module *mod, Elf *e)
{
	struct noteread r = { .p = p, .mod = mod };
	Elf_Scn *scn = NULL;
	size_t shstrndx, phnum;
	GElf_Shdr sh;
	int err = 0;

	if (elf_getshdrstrndx(e, &shstrndx) || elf_getphdrnum(e, &phnum))
		return 0;
	r.segs.v = calloc(phnum ? phnum : 1, sizeof(*r.segs.v));
	if (!r.segs.v)
		return -ENOMEM;
	for (size_t i = 0; i < phnum; i++)
		if (gelf_getphdr(e, (int)i, &r.segs.v[r.segs.cnt]))
			r.segs.cnt++;
	while ((scn = elf_nextscn(e, scn))) {
		const char *n;
		if (!gelf_getshdr(scn, &sh) || !(n = elf_strptr(e, shstrndx, sh.sh_name)))
			continue;
		if (!strcmp(n, ".stapsdt.base")) {
			r.have_base = true;
			r.base_sec = sh.sh_addr;
		}
	}
	while (!err && (scn = elf_nextscn(e, scn))) {
		const char *n;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE ||
		    !(n = elf_strptr(e, shstrndx, sh.sh_name)) || strcmp(n, ".note.stapsdt"))
			continue;
		err = read_section(&r, scn);
	}
	if (err || !r.cnt)
		goto out;
	/* the strings are where they stay: offsets to pointers */
	for (size_t i = 0; i < r.cnt; i++) {
		struct pr_note *n = &r.notes[i];
		n->prov = r.strs + (uintptr_t)n->prov;
		n->name = r.strs + (uintptr_t)n->name;
		n->argstr = r.strs + (uintptr_t)n->argstr;
		n->func = "";
		for (uint32_t k = 0; k < n->arg_cnt; k++)
			if (n->arg_sym[k])
				n->arg_sym[k] = r.strs + ((uintptr_t)n->arg_sym[k] - 1);
	}
	mod->notes = r.notes;
	mod->note_cnt = r.cnt;
	mod->note_strs = r.strs;
	r.notes = NULL;
	r.strs = NULL;
out:
	free(r.notes);
	free(r.strs);
	free(r.segs.v);
	return err;
}
