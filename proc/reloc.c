/* SPDX-License-Identifier: MIT */
/*
 * Planning a SystemTap site's jump (docs/notes.md, "Trampolines"): can the
 * runtime replace the site's nop and the instructions after it, five bytes
 * at least, with a jump to a trampoline that runs those instructions
 * elsewhere? The consumer decides, with Zydis (Debian's libzydis-dev), and
 * the runtime carries it out (runtime/tramp.c) or traps the site.
 *
 * The instructions are read from the object's file (the process's text
 * may hold a patch of ours), decoded from the byte after the nop until the
 * five bytes are covered, and each one planned (struct udt_site_insn):
 *
 *  - copied as it is, if nothing in it depends on where it is;
 *  - a RIP-relative operand (disp32) made to name the same address from
 *    the trampoline;
 *  - a jmp or a jcc (rel8 or rel32) made a rel32 one to the same place;
 *  - a call rel32 made a push of its return address in the object and a
 *    jump: the callee returns into the object, whose unwind information
 *    describes the frame as before. Only when its return address is past
 *    the jump's five bytes, and not in a process that has shadow stacks,
 *    whose return would not match.
 *
 * Refused (the site is trapped instead): the first bytes of the next
 * function (its entry; the padding after the site's function may go);
 * another site's nop among them (it would be copied, and never fire); an instruction that cannot be
 * decoded; loop, jrcxz and the like (rel8 only); any other relative
 * operand (xbegin); an indirect call (its return address would be the
 * trampoline's); the traps (int3, int n, ud2...), which must happen where
 * they are; more than four instructions; and, above all, a jump target:
 * an instruction of the site's function that jumps, calls or points
 * (lea ...(%rip)) into the bytes the jump displaces would land in the
 * middle of the jump. The function is the symbol that covers the site
 * (when it has a size), or the .eh_frame entry that does (a stripped
 * object); without either, its jumps are unknown, and the site is trapped.
 * Targets that no instruction names (a jump table's, a landing pad's) are
 * not seen here: a thread that lands there meets an int3 (the runtime puts
 * one wherever a displaced instruction started) and is sent to the copy,
 * correct but slow.
 *
 * The file is another program's: every read is bounded by its section or
 * segment, a function is decoded up to MAX_FUNC bytes.
 */
#include "proc/proc.h"
#include "abi/abi.h"
#include "util/util.h"

#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(UDT_HAVE_ZYDIS)
#include <Zydis/Zydis.h>

#define MAX_FUNC (4u << 20)

/*
 * A module's file, open for its plans' reads (mod->obj, until
 * pr_module_close()): its executable segments, its .eh_frame_hdr and
 * .eh_frame (unless it has none), looked up once for all its functions.
 */
struct pr_obj {
	int fd;
	Elf *e;
	uint64_t base;            /* load bias of the module */
	const uint8_t *raw;       /* the file's bytes, as libelf mapped them (NULL: pread()) */
	size_t raw_n;
	const uint8_t *hdr, *frame;
	size_t hdr_n, frame_n;
	uint64_t hdr_addr, frame_addr;
};

/* Read n bytes at target address addr from the file's executable segments: how many (0: none). */
static size_t read_text(const struct pr_obj *o, uint64_t addr, void *buf, size_t n)
{
	size_t phnum;
	uint64_t v = addr - o->base;

	if (elf_getphdrnum(o->e, &phnum))
		return 0;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(o->e, (int)i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X) ||
		    v < ph.p_vaddr || v - ph.p_vaddr >= ph.p_filesz)
			continue;
		uint64_t left = ph.p_filesz - (v - ph.p_vaddr), at = ph.p_offset + (v - ph.p_vaddr);
		size_t want = n < left ? n : (size_t)left;
		if (o->raw) {
			if (at > o->raw_n)
				return 0;
			want = want < o->raw_n - at ? want : (size_t)(o->raw_n - at);
			memcpy(buf, o->raw + at, want);
			return want;
		}
		ssize_t got = pread(o->fd, buf, want, (off_t)at);
		return got > 0 ? (size_t)got : 0;
	}
	return 0;
}

/* -- The function's extent, from .eh_frame --------------------------------------------------- */

/* DWARF's pointer encodings (DW_EH_PE_*) that GNU ld and gcc write. */
enum { PE_ABS = 0x00, PE_ULEB = 0x01, PE_U2 = 0x02, PE_U4 = 0x03, PE_U8 = 0x04, PE_SLEB = 0x09,
       PE_S2 = 0x0a, PE_S4 = 0x0b, PE_S8 = 0x0c, PE_PCREL = 0x10, PE_DATAREL = 0x30,
       PE_OMIT = 0xff };

/* A section's bytes, its address, and a cursor in them. */
struct cur {
	const uint8_t *b;
	size_t n, at;
	uint64_t addr;            /* of b[0] */
	bool bad;
};

static uint64_t rd(struct cur *c, size_t sz)
{
	uint64_t v = 0;

	if (c->at > c->n || sz > c->n - c->at) {
		c->bad = true;
		return 0;
	}
	memcpy(&v, c->b + c->at, sz); /* little-endian, x86-64 only */
	c->at += sz;
	return v;
}

static uint64_t leb(struct cur *c, bool is_signed)
{
	uint64_t v = 0;
	unsigned shift = 0;
	uint8_t byte;

	do {
		byte = (uint8_t)rd(c, 1);
		if (shift < 64)
			v |= (uint64_t)(byte & 0x7f) << shift;
		shift += 7;
	} while ((byte & 0x80) && !c->bad && shift < 70);
	if (is_signed && shift < 64 && (byte & 0x40))
		v |= ~0ull << shift;
	return v;
}

/* A pointer of encoding enc at the cursor; data: the address datarel is relative to. */
static uint64_t ptr(struct cur *c, uint8_t enc, uint64_t data)
{
	uint64_t where = c->addr + c->at, v;

	switch (enc & 0x0f) {
	case PE_ABS: case PE_U8: case PE_S8: v = rd(c, 8); break;
	case PE_U4: v = rd(c, 4); break;
	case PE_S4: v = (uint64_t)(int64_t)(int32_t)rd(c, 4); break;
	case PE_U2: v = rd(c, 2); break;
	case PE_S2: v = (uint64_t)(int64_t)(int16_t)rd(c, 2); break;
	case PE_ULEB: v = leb(c, false); break;
	case PE_SLEB: v = leb(c, true); break;
	default: c->bad = true; return 0;
	}
	switch (enc & 0x70) {
	case 0: return v;
	case PE_PCREL: return v + where;
	case PE_DATAREL: return v + data;
	default: c->bad = true; return 0;
	}
}

/* The section named name: its data as a cursor. */
static bool section(Elf *e, const char *name, struct cur *ret)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(e, &shstrndx))
		return false;
	while ((scn = elf_nextscn(e, scn))) {
		const char *n;
		Elf_Data *d;
		if (!gelf_getshdr(scn, &sh) || !(n = elf_strptr(e, shstrndx, sh.sh_name)) ||
		    strcmp(n, name) || sh.sh_type == SHT_NOBITS || !(d = elf_getdata(scn, NULL)) ||
		    !d->d_buf)
			continue;
		*ret = (struct cur){ .b = d->d_buf, .n = d->d_size, .addr = sh.sh_addr };
		return true;
	}
	return false;
}

/* mod's file, open (opened now, if it was not): NULL when it cannot be read as ELF. */
static const struct pr_obj *obj_of(struct pr_module *mod)
{
	struct pr_obj *o = mod->obj;
	struct cur c;

	if (o)
		return o->e ? o : NULL;
	o = mod->obj = udt__xcalloc(1, sizeof(*o));
	o->base = mod->base;
	o->fd = pr_module_open(mod);
	o->e = o->fd >= 0 ? elf_begin(o->fd, ELF_C_READ_MMAP, NULL) : NULL;
	if (!o->e || elf_kind(o->e) != ELF_K_ELF) {
		if (o->e)
			elf_end(o->e);
		o->e = NULL;
		return NULL;
	}
	o->raw = (const uint8_t *)elf_rawfile(o->e, &o->raw_n);
	if (section(o->e, ".eh_frame_hdr", &c)) {
		o->hdr = c.b;
		o->hdr_n = c.n;
		o->hdr_addr = c.addr;
	}
	if (section(o->e, ".eh_frame", &c)) {
		o->frame = c.b;
		o->frame_n = c.n;
		o->frame_addr = c.addr;
	}
	return o;
}

void pr_module_close(struct pr_module *mod)
{
	struct pr_obj *o = mod->obj;

	if (!o)
		return;
	if (o->e)
		elf_end(o->e);
	if (o->fd >= 0)
		close(o->fd);
	free(o);
	mod->obj = NULL;
}

/* The FDE's R encoding, from its CIE at cie (an offset in fr). */
static uint8_t fde_encoding(const struct cur *fr, size_t cie)
{
	struct cur c = *fr;
	uint32_t len;
	uint8_t version, enc = PE_ABS;
	const char *aug;
	size_t aug_len;

	c.at = cie;
	len = (uint32_t)rd(&c, 4);
	if (c.bad || len == 0xffffffffu || rd(&c, 4) != 0)
		return PE_OMIT; /* (64-bit entries, or not a CIE) */
	version = (uint8_t)rd(&c, 1);
	aug = (const char *)c.b + c.at;
	aug_len = c.at < c.n ? strnlen(aug, c.n - c.at) : c.n;
	if (c.bad || c.at + aug_len >= c.n || aug[0] != 'z')
		return aug_len == 0 && !c.bad ? PE_ABS : PE_OMIT;
	c.at += aug_len + 1;
	(void)leb(&c, false); /* code alignment */
	(void)leb(&c, true);  /* data alignment */
	if (version == 1)
		(void)rd(&c, 1);
	else
		(void)leb(&c, false); /* return address register */
	(void)leb(&c, false); /* the augmentation data's length */
	for (size_t i = 1; i < aug_len && !c.bad; i++) {
		switch (aug[i]) {
		case 'R': enc = (uint8_t)rd(&c, 1); return c.bad ? PE_OMIT : enc;
		case 'L': (void)rd(&c, 1); break;
		case 'P': { uint8_t pe = (uint8_t)rd(&c, 1); (void)ptr(&c, pe & 0x7f, 0); break; }
		case 'S': case 'B': break;
		default: return PE_OMIT;
		}
	}
	return PE_ABS;
}

/*
 * The extent [*lo, *hi) (ELF addresses) of the .eh_frame entry covering v,
 * through .eh_frame_hdr's sorted table, and where the next entry starts
 * (*next, UINT64_MAX: none). False when there is none to read.
 */
static bool fde_range(const struct pr_obj *o, uint64_t v, uint64_t *lo, uint64_t *hi,
		      uint64_t *next)
{
	struct cur h = { .b = o->hdr, .n = o->hdr_n, .addr = o->hdr_addr };
	struct cur fr = { .b = o->frame, .n = o->frame_n, .addr = o->frame_addr };
	uint8_t cnt_enc, tab_enc;
	uint64_t cnt;

	if (!o->hdr || !o->frame)
		return false;
	if (rd(&h, 1) != 1)
		return false;
	uint8_t frame_enc = (uint8_t)rd(&h, 1);
	cnt_enc = (uint8_t)rd(&h, 1);
	tab_enc = (uint8_t)rd(&h, 1);
	(void)ptr(&h, frame_enc, h.addr);
	cnt = ptr(&h, cnt_enc, h.addr);
	/* the table: pairs of datarel sdata4 (what GNU ld writes), sorted */
	if (h.bad || tab_enc != (PE_DATAREL | PE_S4) || cnt > (h.n - h.at) / 8)
		return false;
	size_t a = 0, b = (size_t)cnt, tab = h.at;
	while (b - a > 1) {
		size_t mid = a + (b - a) / 2;
		h.at = tab + mid * 8;
		if (ptr(&h, tab_enc, h.addr) <= v)
			a = mid;
		else
			b = mid;
	}
	if (!cnt)
		return false;
	*next = UINT64_MAX;
	if (a + 1 < cnt) {
		h.at = tab + (a + 1) * 8;
		*next = ptr(&h, tab_enc, h.addr);
	}
	h.at = tab + a * 8;
	(void)ptr(&h, tab_enc, h.addr);
	uint64_t fde = ptr(&h, tab_enc, h.addr);
	if (h.bad || fde < fr.addr || fde - fr.addr >= fr.n)
		return false;
	/* the FDE: length, CIE pointer (back from here), pc_begin, pc_range */
	fr.at = (size_t)(fde - fr.addr);
	uint32_t len = (uint32_t)rd(&fr, 4);
	size_t here = fr.at;
	uint32_t cie_ptr = (uint32_t)rd(&fr, 4);
	if (fr.bad || len == 0xffffffffu || !cie_ptr || cie_ptr > here)
		return false;
	uint8_t enc = fde_encoding(&fr, here - cie_ptr);
	if (enc == PE_OMIT)
		return false;
	*lo = ptr(&fr, enc, fr.addr);
	*hi = *lo + ptr(&fr, enc & 0x0f, 0);
	return !fr.bad && v >= *lo && v < *hi;
}

/* -- Decoding -------------------------------------------------------------------------------- */

static bool is_trap(ZydisMnemonic m)
{
	return m == ZYDIS_MNEMONIC_INT3 || m == ZYDIS_MNEMONIC_INT || m == ZYDIS_MNEMONIC_INTO ||
	       m == ZYDIS_MNEMONIC_INT1 || m == ZYDIS_MNEMONIC_UD0 || m == ZYDIS_MNEMONIC_UD1 ||
	       m == ZYDIS_MNEMONIC_UD2;
}

/*
 * Plan instruction in (decoded from the bytes at addr, offset off from the
 * site) into *ret; jump_len: the bytes a jump takes (0: a trap's copy). NULL,
 * or why it cannot be moved (note: a note site's words, "an instruction after
 * it"; else an instruction site's).
 */
static const char *plan_insn(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *ops,
			     uint64_t addr, uint32_t off, uint32_t jump_len, bool shstk, bool note,
			     struct udt_site_insn *ret)
{
	*ret = (struct udt_site_insn){ .off = (uint8_t)off, .len = in->length,
				       .kind = UDT_RELOC_COPY };
	if (is_trap(in->mnemonic))
		return note ? "an instruction after it is a trap" : "an instruction it takes is a trap";
	if (in->meta.category == ZYDIS_CATEGORY_CALL && !(in->attributes & ZYDIS_ATTRIB_IS_RELATIVE))
		return note ? "an instruction after it is an indirect call"
			    : "an instruction it takes is an indirect call (its return address "
			      "would be the trampoline's)";
	for (uint32_t i = 0; i < in->operand_count_visible; i++) {
		const ZydisDecodedOperand *o = &ops[i];
		ZyanU64 abs;

		if (o->type == ZYDIS_OPERAND_TYPE_MEMORY && o->mem.base == ZYDIS_REGISTER_RIP) {
			if (in->raw.disp.size != 32 ||
			    !ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(in, o, addr, &abs)))
				return note ? "an instruction after it has an operand it cannot move"
					    : "an instruction it takes has an operand it cannot move";
			ret->kind = UDT_RELOC_RIPREL;
			ret->fix = in->raw.disp.offset;
			ret->target = abs;
		} else if (o->type == ZYDIS_OPERAND_TYPE_IMMEDIATE && o->imm.is_relative) {
			if (!ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(in, o, addr, &abs)))
				return note ? "an instruction after it has an operand it cannot move"
					    : "an instruction it takes has an operand it cannot move";
			ret->target = abs;
			if (in->mnemonic == ZYDIS_MNEMONIC_JMP) {
				ret->kind = UDT_RELOC_JMP;
			} else if (in->meta.category == ZYDIS_CATEGORY_COND_BR &&
				   in->mnemonic != ZYDIS_MNEMONIC_JRCXZ &&
				   in->mnemonic != ZYDIS_MNEMONIC_JECXZ &&
				   in->mnemonic != ZYDIS_MNEMONIC_JCXZ &&
				   in->mnemonic != ZYDIS_MNEMONIC_LOOP &&
				   in->mnemonic != ZYDIS_MNEMONIC_LOOPE &&
				   in->mnemonic != ZYDIS_MNEMONIC_LOOPNE) {
				ret->kind = UDT_RELOC_JCC;
				ret->fix = in->opcode & 0x0f; /* 70+cc, or 0f 80+cc */
			} else if (in->meta.category == ZYDIS_CATEGORY_CALL) {
				if (off + in->length < jump_len)
					return note ? "a call after it would return into the jump"
						    : "a call it takes would return into the jump";
				if (shstk)
					return note ? "the process has shadow stacks, and a call after "
						      "it would not return where they say"
						    : "the process has shadow stacks, and a call it "
						      "takes would not return where they say";
				ret->kind = UDT_RELOC_CALL;
			} else {
				return note ? "an instruction after it branches in a way it cannot move"
					    : "an instruction it takes branches in a way it cannot move";
			}
		}
	}
	return NULL;
}

/*
 * Does an instruction of [lo, hi) (ELF addresses of the file) name an
 * address in (site, site + len), by a branch or a RIP-relative operand?
 * NULL, or what refuses the site.
 */
static const char *scan_function(const struct pr_obj *o, const ZydisDecoder *dec, uint64_t lo,
				 uint64_t hi, uint64_t site, uint32_t len)
{
	size_t n = (size_t)(hi - lo);
	uint8_t *buf;
	const char *why = NULL;

	if (hi <= lo || n > MAX_FUNC)
		return "its function is too large to look at";
	buf = udt__xmalloc(n);
	if (read_text(o, o->base + lo, buf, n) != n) {
		free(buf);
		return "its function could not be read";
	}
	for (size_t at = 0; at < n && !why;) {
		ZydisDecodedInstruction in;
		ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
		uint64_t ip = o->base + lo + at;

		if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(dec, buf + at, n - at, &in, ops))) {
			why = "its function could not be decoded";
			break;
		}
		for (uint32_t i = 0; i < in.operand_count_visible && !why; i++) {
			ZyanU64 abs;
			bool named = (ops[i].type == ZYDIS_OPERAND_TYPE_MEMORY &&
				      ops[i].mem.base == ZYDIS_REGISTER_RIP) ||
				     (ops[i].type == ZYDIS_OPERAND_TYPE_IMMEDIATE &&
				      ops[i].imm.is_relative);
			if (named && ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(&in, &ops[i], ip, &abs)) &&
			    abs > site && abs < site + len)
				why = "an instruction of its function jumps into the bytes a jump "
				      "would take";
		}
		at += in.length;
	}
	free(buf);
	return why;
}

bool pr_site_plan(struct pr_module *mod, struct udt_site *site, bool shstk, const char **ret_why)
{
	const struct pr_obj *o = obj_of(mod);
	uint8_t b[UDT_SITE_BYTES_MAX + 15];
	uint32_t off = 1, n = 0;
	const char *why = NULL;
	ZydisDecoder dec;
	uint64_t lo, hi;
	const struct pr_sym *sym;
	size_t got;

	if (!o) {
		why = "its object's file could not be read";
		goto out;
	}
	got = read_text(o, site->addr, b, sizeof(b));
	if (got < UDT_SITE_JMP_LEN || b[0] != UDT_SITE_NOP) {
		why = "its bytes are not a nop and four more in its object's file";
		goto out;
	}
	ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
	while (off < UDT_SITE_JMP_LEN && !why) {
		ZydisDecodedInstruction in;
		ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];

		if (n == UDT_SITE_INSN_MAX || !ZYAN_SUCCESS(ZydisDecoderDecodeFull(
							 &dec, b + off, got - off, &in, ops))) {
			why = "the instructions after it could not be decoded";
			break;
		}
		if (off + in.length > UDT_SITE_BYTES_MAX) {
			why = "the instructions after it are too long";
			break;
		}
		why = plan_insn(&in, ops, site->addr + off, off, UDT_SITE_JMP_LEN, shstk, true,
				&site->insn[n]);
		off += in.length;
		n++;
	}
	if (why)
		goto out;
	/* another site's nop among them would be copied, and never fire */
	for (size_t i = 0; i < mod->note_cnt; i++) {
		if (mod->notes[i].pc > site->addr && mod->notes[i].pc < site->addr + off) {
			why = "another probe site is in the bytes a jump would take";
			goto out;
		}
	}
	/*
	 * The function's extent: its sized symbol, else its .eh_frame entry. The
	 * jump may take the padding after its end, not the next function's first
	 * bytes (an entry: a call's target): the next function symbol's, or the
	 * next .eh_frame entry's.
	 */
	uint64_t v = site->addr - mod->base, next = UINT64_MAX, fnext;
	bool fde = fde_range(o, v, &lo, &hi, &fnext);
	if (!pr_module_symbolize(mod, site->addr, &sym) && sym->size) {
		lo = sym->addr - mod->base;
		hi = lo + sym->size;
	} else if (!fde) {
		why = "the extent of its function is unknown (no symbol with a size, no .eh_frame "
		      "entry)";
		goto out;
	}
	if (fde)
		next = fnext;
	for (size_t i = 0; i < mod->sym_cnt; i++) {
		uint64_t a = mod->syms[i].addr - mod->base;
		if (mod->syms[i].func && a > v && a < next)
			next = a;
	}
	if (v + off > next) {
		why = "a jump would take the first bytes of the next function";
		goto out;
	}
	why = scan_function(o, &dec, lo, hi, site->addr, off);
	if (why)
		goto out;
	site->mode = UDT_SITE_JUMP;
	site->len = (uint8_t)off;
	site->insn_cnt = (uint8_t)n;
	memcpy(site->bytes, b, off);
out:
	*ret_why = why;
	return !why;
}

/* -- Functions, for the pid provider (docs/pid.md) ------------------------------------------- */

/* Where the first function after target address a starts in mod (its padding ends): UINT64_MAX
   when none does. */
static uint64_t next_start(const struct pr_obj *o, struct pr_module *mod, uint64_t a)
{
	uint64_t lo, hi, next = UINT64_MAX, v = a - mod->base;

	if (fde_range(o, v, &lo, &hi, &next) || next != UINT64_MAX)
		next = next == UINT64_MAX ? UINT64_MAX : next + mod->base;
	/* the first function symbol at a or after */
	for (size_t i = pr_module_sym_above(mod, a - 1); i < mod->sym_cnt && mod->syms[i].addr < next;
	     i++)
		if (mod->syms[i].func) {
			next = mod->syms[i].addr;
			break;
		}
	return next;
}

/* Is in a jmp through a register or memory (the way a jump table is taken)? */
static bool is_indirect_jmp(const ZydisDecodedInstruction *in)
{
	return in->mnemonic == ZYDIS_MNEMONIC_JMP && !(in->attributes & ZYDIS_ATTRIB_IS_RELATIVE);
}

/* Is in a leave, or the mov %rbp,%rsp a frame's end is (illumos's return rule with a table)? */
static bool ends_frame(const uint8_t *b, uint32_t len)
{
	return (len == 1 && b[0] == 0xc9) ||
	       (len == 3 && b[0] == 0x48 && (b[1] == 0x89 || b[1] == 0x8b) &&
		(b[2] == 0xec || b[2] == 0xe5));
}

static int insn_at(const struct pr_func_text *f, uint64_t off)
{
	size_t lo = 0, hi = f->cnt;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (f->v[mid].off == off)
			return (int)mid;
		if (f->v[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

int pr_func_text(struct pr_module *mod, uint64_t lo, uint64_t hi, struct pr_func_text *ret,
		 const char **ret_why)
{
	const struct pr_obj *o;
	ZydisDecoder dec;
	size_t n = (size_t)(hi - lo), cap = 0;
	uint64_t *targets = NULL;
	size_t ntargets = 0, tcap = 0;
	int err = 0;

	*ret = (struct pr_func_text){ .lo = lo, .hi = hi };
	*ret_why = NULL;
	if (hi <= lo || n > MAX_FUNC) {
		*ret_why = "its function is too large to look at";
		return -EINVAL;
	}
	if (!(o = obj_of(mod))) {
		*ret_why = "its object's file could not be read";
		err = -EIO;
		goto out;
	}
	ret->text = udt__xcalloc(1, n + UDT_SITE_BYTES_MAX);
	if (read_text(o, lo, ret->text, n) != n) {
		*ret_why = "its function could not be read from its object's file";
		err = -EIO;
		goto out;
	}
	/* and what follows it before the next function: padding a jump may take */
	ret->next = next_start(o, mod, hi);
	if (ret->next > hi)
		ret->pad = (uint32_t)read_text(o, hi, ret->text + n,
					       ret->next - hi < UDT_SITE_BYTES_MAX
						       ? (size_t)(ret->next - hi) : UDT_SITE_BYTES_MAX);
	ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
	for (size_t at = 0; at < n;) {
		ZydisDecodedInstruction in;
		ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
		struct pr_insn pi = { .off = (uint32_t)at };
		uint64_t ip = lo + at;

		if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&dec, ret->text + at, n - at, &in, ops))) {
			ret->partial = true; /* (those before it are kept, as illumos keeps them) */
			break;
		}
		pi.len = in.length;
		if (in.mnemonic == ZYDIS_MNEMONIC_RET)
			pi.flags |= PR_INSN_RET | PR_INSN_END;
		if (in.mnemonic == ZYDIS_MNEMONIC_JMP || is_trap(in.mnemonic) ||
		    in.mnemonic == ZYDIS_MNEMONIC_HLT)
			pi.flags |= PR_INSN_END;
		if (is_indirect_jmp(&in))
			ret->jump_table = true;
		if (in.mnemonic == ZYDIS_MNEMONIC_PAUSE)
			pi.flags |= PR_INSN_PAUSE;
		if (in.mnemonic == ZYDIS_MNEMONIC_SYSCALL)
			pi.flags |= PR_INSN_SYSCALL;
		if (in.mnemonic == ZYDIS_MNEMONIC_CALL && in.operand_count_visible &&
		    !(ops[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE && ops[0].imm.is_relative))
			pi.flags |= PR_INSN_ICALL;
		for (uint32_t i = 0; i < in.operand_count_visible; i++) {
			ZyanU64 abs;
			bool rel = ops[i].type == ZYDIS_OPERAND_TYPE_IMMEDIATE && ops[i].imm.is_relative;
			bool rip = ops[i].type == ZYDIS_OPERAND_TYPE_MEMORY &&
				   ops[i].mem.base == ZYDIS_REGISTER_RIP;
			if (!(rel || rip) || !ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(&in, &ops[i], ip, &abs)))
				continue;
			if (rel && (in.mnemonic == ZYDIS_MNEMONIC_CALL || in.mnemonic == ZYDIS_MNEMONIC_JMP ||
				    in.meta.category == ZYDIS_CATEGORY_COND_BR)) {
				pi.dest = abs;
				if (in.mnemonic == ZYDIS_MNEMONIC_CALL)
					pi.flags |= PR_INSN_CALL;
			}
			if (abs >= lo && abs < hi)
				UDT__PUSH(targets, ntargets, tcap, abs - lo);
			else if (rel && (in.mnemonic == ZYDIS_MNEMONIC_JMP ||
					 in.meta.category == ZYDIS_CATEGORY_COND_BR))
				pi.flags |= PR_INSN_OUT; /* a tail call (or a jump to a cold part) */
		}
		UDT__PUSH(ret->v, ret->cnt, cap, pi);
		at += in.length;
	}
	/* what its branches, calls and RIP-relative operands name in it */
	for (size_t i = 0; i < ntargets; i++) {
		int k = insn_at(ret, targets[i]);
		if (k >= 0)
			ret->v[k].flags |= PR_INSN_TARGET;
		else if (targets[i] < (ret->cnt ? ret->v[ret->cnt - 1].off + ret->v[ret->cnt - 1].len : 0))
			ret->odd_target = true; /* (inside an instruction: data, or code decoded wrong) */
	}
out:
	free(targets);
	if (err)
		pr_func_text_free(ret);
	return err;
}

void pr_func_text_free(struct pr_func_text *f)
{
	free(f->v);
	free(f->text);
	f->v = NULL;
	f->text = NULL;
	f->cnt = 0;
}

bool pr_func_returns(const struct pr_func_text *f, size_t i)
{
	const struct pr_insn *in = &f->v[i];

	if (!(in->flags & (PR_INSN_RET | PR_INSN_OUT)))
		return false;
	if (!f->jump_table)
		return true;
	/* illumos's rule where an indirect jmp may take a jump table: leave; ret, and
	   mov %rbp,%rsp; pop %rbp; ret, only */
	if (!(in->flags & PR_INSN_RET) || !i)
		return false;
	const struct pr_insn *p = &f->v[i - 1];
	if (ends_frame(f->text + p->off, p->len))
		return true;
	return i >= 2 && p->len == 1 && f->text[p->off] == 0x5d &&
	       ends_frame(f->text + f->v[i - 2].off, f->v[i - 2].len);
}

/* Decode instruction i of f again, for its plan. */
static bool decode(const struct pr_func_text *f, size_t i, ZydisDecodedInstruction *in,
		   ZydisDecodedOperand *ops)
{
	ZydisDecoder dec;

	ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
	return ZYAN_SUCCESS(ZydisDecoderDecodeFull(&dec, f->text + f->v[i].off,
						   (size_t)(f->hi - f->lo) - f->v[i].off, in, ops));
}

/* A window's plan, as it is made: its instructions, its bytes. */
struct window {
	struct udt_site_insn insn[UDT_SITE_INSN_MAX];
	uint32_t n, len;
	size_t first;             /* the index of its first instruction */
};

/*
 * The forward window of instruction i: it and those after it, five bytes at
 * least, none a branch's target in the function (but the first), each one
 * moved; or, after the function's last instruction when it ends the flow (a
 * ret, a jmp), the padding before the next function, which nothing runs; up
 * to the instruction at cover_to at least (0: none), a later site's.
 * NULL, or why there is none.
 */
static const char *forward(const struct pr_func_text *f, size_t i, uint64_t cover_to, bool shstk,
			   struct window *w)
{
	ZydisDecodedInstruction in;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	bool covered = !cover_to;

	w->n = w->len = 0;
	w->first = i;
	for (size_t k = i; w->len < UDT_SITE_JMP_LEN || !covered; k++) {
		if (k == f->cnt) {
			uint64_t end = f->lo + f->v[i].off + w->len;
			if (!covered)
				return "its function ends before the site a jump was to take too";
			if (!w->n || !(f->v[k - 1].flags & PR_INSN_END) || f->partial || end != f->hi ||
			    UDT_SITE_JMP_LEN - w->len > f->pad)
				return "its function ends within the five bytes a jump takes";
			w->len = UDT_SITE_JMP_LEN; /* (the padding: its bytes are never run) */
			break;
		}
		if (k > i && (f->v[k].flags & PR_INSN_TARGET))
			return "an instruction of its function jumps into the bytes a jump would take";
		if (k > i && f->v[k - 1].flags & PR_INSN_END)
			return "the bytes a jump would take run past the end of the flow (a ret or a "
			       "jmp) into other code";
		if (w->n == UDT_SITE_INSN_MAX || !decode(f, k, &in, ops))
			return "the instructions a jump would take could not be decoded";
		const char *why = plan_insn(&in, ops, f->lo + f->v[k].off, w->len, UDT_SITE_JMP_LEN,
					    shstk, false, &w->insn[w->n]);
		if (why)
			return why;
		/* (the callee returns to the instruction after the call, in the bytes: the
		   later site there would not fire) */
		if (!covered && w->insn[w->n].kind == UDT_RELOC_CALL &&
		    f->lo + f->v[k].off + f->v[k].len <= cover_to)
			return "a call it takes would return before the site it was to take too";
		covered |= f->lo + f->v[k].off >= cover_to;
		w->len += f->v[k].len;
		w->n++;
	}
	return NULL;
}

/*
 * A return's window before instruction i: the instructions of the straight
 * line that ends with it (no branch, no call, no end of the flow among
 * them, none a branch's target but the first), five bytes at least, which
 * run relocated before the fire. NULL, or why there is none.
 */
static const char *backward(const struct pr_func_text *f, size_t i, bool shstk, struct window *w)
{
	ZydisDecodedInstruction in;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	uint32_t len = f->v[i].len;
	size_t j = i;

	while (len < UDT_SITE_JMP_LEN) {
		if (!j || i - j + 1 == UDT_SITE_INSN_MAX)
			return "the straight line before it is shorter than a jump's five bytes";
		if (f->v[j].flags & PR_INSN_TARGET)
			return "the straight line before it (which a jump would take) is a branch's "
			       "target";
		j--;
		if (f->v[j].flags & PR_INSN_END)
			return "the straight line before it is shorter than a jump's five bytes";
		len += f->v[j].len;
	}
	w->n = w->len = 0;
	w->first = j;
	for (size_t k = j; k <= i; k++) {
		if (!decode(f, k, &in, ops))
			return "the instructions a jump would take could not be decoded";
		if (k < i && (in.meta.category == ZYDIS_CATEGORY_CALL ||
			      in.meta.category == ZYDIS_CATEGORY_COND_BR ||
			      in.meta.category == ZYDIS_CATEGORY_UNCOND_BR))
			return "the straight line before it has a branch or a call";
		const char *why = plan_insn(&in, ops, f->lo + f->v[k].off, w->len, UDT_SITE_JMP_LEN,
					    shstk, false, &w->insn[w->n]);
		if (why)
			return why;
		w->len += f->v[k].len;
		w->n++;
	}
	return NULL;
}

bool pr_insn_plan(const struct pr_func_text *f, size_t i, uint64_t prev_site, uint64_t next_site,
		  uint64_t cover_to, bool is_return, bool shstk, bool traps_only,
		  struct udt_site *site, const char **ret_why)
{
	ZydisDecodedInstruction in;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	struct window w;
	const char *why = NULL, *bwhy = NULL;

	memset(site, 0, sizeof(*site));
	site->kind = UDT_SITE_INSN;
	site->addr = f->lo + f->v[i].off;
	site->mode = UDT_SITE_TRAP;
	*ret_why = NULL;
	/* the trap's plan: the instruction alone, copied after the fire */
	if (!decode(f, i, &in, ops)) {
		*ret_why = "its instruction could not be decoded";
		return false;
	}
	why = plan_insn(&in, ops, site->addr, 0, 0, shstk, false, &site->insn[0]);
	if (why) {
		*ret_why = why;
		return false;
	}
	site->insn_cnt = 1;
	site->len = in.length;
	memcpy(site->bytes, f->text + f->v[i].off, in.length);
	if (traps_only) {
		*ret_why = "traps were asked for (-x pidsites=trap)";
		return true;
	}
	if (f->odd_target || f->partial) {
		*ret_why = f->partial ? "its function could not be decoded to its end"
				      : "a branch of its function lands inside an instruction";
		return true;
	}
	/* a jump: forward from it; for a return, else the straight line that ends with it */
	why = forward(f, i, cover_to, shstk, &w);
	if (!why && site->addr + w.len > next_site)
		why = "another probe site is in the bytes a jump would take";
	if (why && is_return && !cover_to) {
		bwhy = backward(f, i, shstk, &w);
		if (!bwhy && f->lo + f->v[w.first].off <= prev_site)
			bwhy = "another probe site is in the bytes a jump would take";
		if (!bwhy)
			why = NULL;
	}
	if (!why && w.len > UDT_SITE_BYTES_MAX)
		why = "the instructions a jump would take are too long";
	if (why) {
		*ret_why = why;
		return true; /* (the trap) */
	}
	uint32_t start = f->v[w.first].off;
	site->mode = UDT_SITE_JUMP;
	site->fire_off = (uint8_t)(f->v[i].off - start);
	site->insn_cnt = (uint8_t)w.n;
	site->len = (uint8_t)w.len;
	memcpy(site->insn, w.insn, w.n * sizeof(w.insn[0]));
	memcpy(site->bytes, f->text + start, w.len); /* (the padding's too) */
	return true;
}

#else

void pr_module_close(struct pr_module *mod)
{
	(void)mod;
}

bool pr_site_plan(struct pr_module *mod, struct udt_site *site, bool shstk, const char **ret_why)
{
	(void)mod;
	(void)site;
	(void)shstk;
	*ret_why = "dtrace was built without Zydis (libzydis-dev), which decodes the "
		   "instructions a jump would displace";
	return false;
}


int pr_func_text(struct pr_module *mod, uint64_t lo, uint64_t hi, struct pr_func_text *ret,
		 const char **ret_why)
{
	(void)mod;
	*ret = (struct pr_func_text){ .lo = lo, .hi = hi };
	*ret_why = "dtrace was built without Zydis (libzydis-dev), which decodes functions";
	return -ENOTSUP;
}

void pr_func_text_free(struct pr_func_text *f)
{
	free(f->v);
	free(f->text);
	f->v = NULL;
	f->text = NULL;
}

bool pr_func_returns(const struct pr_func_text *f, size_t i)
{
	(void)f;
	(void)i;
	return false;
}

bool pr_insn_plan(const struct pr_func_text *f, size_t i, uint64_t prev_site, uint64_t next_site,
		  uint64_t cover_to, bool is_return, bool shstk, bool traps_only,
		  struct udt_site *site, const char **ret_why)
{
	(void)f;
	(void)i;
	(void)prev_site;
	(void)next_site;
	(void)cover_to;
	(void)is_return;
	(void)shstk;
	(void)traps_only;
	(void)site;
	*ret_why = "dtrace was built without Zydis (libzydis-dev), which decodes functions";
	return false;
}
#endif
