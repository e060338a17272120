/* SPDX-License-Identifier: MIT */
/*
 * Probe tables the runtime makes itself (docs/format.md §2): for the SDT(9)
 * providers a program defines with the macros of udtrace/sdt.h (sdt.c) and
 * for providers declared at run time (dynprov.c). They have the layout of a
 * `dtrace -G` table, with probe records that name their module, and are
 * registered in udt__registry like any other, where the consumer reads them.
 */
#ifndef UDT_RUNTIME_TABLES_H
#define UDT_RUNTIME_TABLES_H

#include <stddef.h>
#include <stdint.h>

#include "abi/probe_table.h"

/* An argument of a probe being put into a table. */
struct rt_targ {
	const char *type;         /* as D shows it ("struct ip *") */
	const char *name;         /* or NULL */
	uint8_t kind;             /* enum udt_arg_kind */
	uint8_t size;             /* bytes */
	uint8_t is_signed;
	uint8_t mapping;          /* translated arguments: the native argument's index */
};

/* A probe being put into a table. */
struct rt_tprobe {
	const char *name;         /* as written ("receive__unreachable") */
	const char *mod;          /* "" or NULL: the object's */
	const char *func;         /* "" or NULL: none */
	const volatile unsigned short *sem;
	uint32_t narg_cnt;
	uint32_t xarg_cnt;
	const struct rt_targ *nargs;
	const struct rt_targ *xargs;  /* NULL: not translated */
};

/*
 * rt_table_build() - a probe table of one provider, in one malloc'ed block,
 * with self-relative references to each probe's semaphore and to dispatch.
 * Return: the table (free() it after udt__unregister()), or NULL when memory
 * is short or a count does not fit the format.
 */
struct udt_table_hdr *rt_table_build(const char *provider, const struct rt_tprobe *probes,
				     size_t probe_cnt, const void *dispatch);

/*
 * rt_ctype_classify() - the kind, size and sign of a C type given as a
 * string, for the table (the runtime parses no C: it recognises pointers,
 * D's string, and the standard integer names; anything else is taken for a
 * 64-bit integer if native, a structure if translated).
 */
void rt_ctype_classify(const char *type, int translated, struct rt_targ *ret);

#endif /* UDT_RUNTIME_TABLES_H */
