/* SPDX-License-Identifier: MIT */
/*
 * dtrace-h: dtrace -h. It owns the C header of probe macros for the
 * providers of a D program, and their SystemTap notes' text. It includes
 * dlang/ and util/; never the consumer's rooms (docs/layout.md).
 */
#ifndef UDT_DTRACE_H_H
#define UDT_DTRACE_H_H

#include "dlang/dlang.h"
#include "util/util.h"

/*
 * dh_header() - write the header for every provider of p to out.
 * @p: the parsed program
 * @out_name: the header's file name (its base name makes the include guard)
 * @src_name: the D source, named in the header's opening comment
 * @out: receives the text
 *
 * Return: 0, or -1 with a "file:line:col: error: ..." message in *ret_err
 * (malloc'ed) when two probes would get the same macro name.
 */
int dh_header(struct dl_program *p, const char *out_name, const char *src_name,
	      struct udt_strbuf *out, char **ret_err);

/* The text of sdk/include/udtrace/sdt.h, NUL-terminated (embedded at build time). */
extern const char udt__sdt_h_text[];
/* The line where sdt.h's SDT(9) API starts: generated headers copy the text before it. */
#define UDT__SDT9_MARK "/* ---- The SDT(9) API ----"

#endif /* UDT_DTRACE_H_H */
