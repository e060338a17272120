/* SPDX-License-Identifier: MIT */
/*
 * The arguments of a SystemTap probe site (a "stapsdt" note: docs/notes.md),
 * as the consumer decodes them from the note's operand strings and the
 * runtime reads them at the site: one struct udt_note_arg each. Shared by
 * proc/notes.c, which makes them, and the runtime, which reads them from
 * the interrupted thread's registers and memory. Append-only; x86-64.
 *
 * An operand "N@OP" is a value of |N| bytes (signed when N < 0; without
 * "N@", 8 unsigned bytes) that OP holds at the site:
 *
 *	%reg                  UDT_NARG_REG: the register (or its part: %eax, %ah)
 *	$imm                  UDT_NARG_CONST: the constant
 *	disp(%base,%idx,s)    UDT_NARG_MEM: |N| bytes at base + idx * s + disp
 *	sym+off(%rip)         UDT_NARG_MEM, base and index none, disp the address
 *	                      (the consumer resolves sym in the object's symbols)
 *	%xmmN                 UDT_NARG_XMM: the low |N| bytes of the register
 *
 * The value is then cut to |N| bytes and extended to 64 bits, with its sign
 * when N < 0, as DTrace's arguments are.
 */
#ifndef UDT_ABI_NOTE_ARG_H
#define UDT_ABI_NOTE_ARG_H

#include <stdint.h>

/* The most arguments a site has (sys/sdt.h's STAP_PROBE12). */
#define UDT_NOTE_MAX_ARGS 12

enum udt_narg_kind {
	UDT_NARG_NONE = 0,        /* an operand this version cannot read */
	UDT_NARG_REG = 1,
	UDT_NARG_MEM = 2,
	UDT_NARG_CONST = 3,
	UDT_NARG_XMM = 4,
};

/* General registers in the order of their x86 encoding. */
enum udt_nreg {
	UDT_NREG_RAX, UDT_NREG_RCX, UDT_NREG_RDX, UDT_NREG_RBX,
	UDT_NREG_RSP, UDT_NREG_RBP, UDT_NREG_RSI, UDT_NREG_RDI,
	UDT_NREG_R8, UDT_NREG_R9, UDT_NREG_R10, UDT_NREG_R11,
	UDT_NREG_R12, UDT_NREG_R13, UDT_NREG_R14, UDT_NREG_R15,
	UDT_NREG_CNT,
	UDT_NREG_NONE = 0xff,
};

struct udt_note_arg {
	uint8_t kind;             /* enum udt_narg_kind */
	int8_t size;              /* bytes of the value: 1, 2, 4 or 8; negative: signed */
	uint8_t reg;              /* REG, XMM: the register; MEM: the base (UDT_NREG_NONE: none) */
	uint8_t index;            /* MEM: the index register, or UDT_NREG_NONE */
	uint8_t scale;            /* MEM: 1, 2, 4 or 8 */
	uint8_t shift;            /* REG: bits the part is above bit 0 (8: %ah, %bh, %ch, %dh) */
	uint8_t width;            /* REG: bytes of the part named (%eax: 4) */
	uint8_t pad;
	int64_t disp;             /* MEM: displacement (the address, with no register); CONST: value */
};

_Static_assert(sizeof(struct udt_note_arg) == 16, "note argument layout");

/* The value of an argument: v cut to |size| bytes, extended to 64 bits (signed if size < 0). */
static inline uint64_t udt_note_arg_value(int8_t size, uint64_t v)
{
	unsigned bytes = (unsigned)(size < 0 ? -size : size);

	if (bytes >= 8)
		return v;
	v &= (1ull << (8 * bytes)) - 1;
	if (size < 0 && (v >> (8 * bytes - 1)) & 1)
		v |= ~0ull << (8 * bytes);
	return v;
}

#endif /* UDT_ABI_NOTE_ARG_H */
