/* SPDX-License-Identifier: MIT */
/*
 * sdk/include/udtrace/sdt.h, embedded in the dtrace command: every generated
 * header carries it, so building an instrumented program needs no include
 * path for udtrace. The file is read by the assembler (.incbin), so the copy
 * is always the header of the same source tree; the Makefile makes this
 * object depend on it.
 */
#include "dtrace-h/dtrace-h.h"

__asm__(".pushsection .rodata\n"
	".globl udt__sdt_h_text\n"
	".hidden udt__sdt_h_text\n"
	".type udt__sdt_h_text, @object\n"
	"udt__sdt_h_text:\n"
	".incbin \"sdk/include/udtrace/sdt.h\"\n"
	".byte 0\n"
	".size udt__sdt_h_text, . - udt__sdt_h_text\n"
	".popsection\n");
