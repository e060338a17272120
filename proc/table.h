/* SPDX-License-Identifier: MIT */
/*
 * Reading probe tables (abi/probe_table.h) found in a traced program's
 * memory or files. Every offset, count and string is checked against the
 * table's size before it is used: a table is data from another program.
 */
#ifndef UDT_PROC_TABLE_H
#define UDT_PROC_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "abi/probe_table.h"

struct pr_table {
	const uint8_t *base;
	size_t sz;
	struct udt_table_hdr hdr;   /* copied */
};

/*
 * pr_table_open() - check a table and prepare it for reading.
 * The buffer must be 8-aligned (a malloc'ed copy) and stay valid while t is used.
 * Return: 0, -EINVAL (not a table, or inconsistent), -EPROTONOSUPPORT (a
 * newer incompatible version).
 */
int pr_table_open(struct pr_table *t, const void *buf, size_t sz);

/* Accessors; indexes must be below the counts in t->hdr (checked by pr_table_open). */
const struct udt_table_provider *pr_table_provider(const struct pr_table *t, uint32_t i);
const struct udt_table_probe *pr_table_probe(const struct pr_table *t, uint32_t i);
const struct udt_table_arg *pr_table_arg(const struct pr_table *t, uint32_t i);
/* The i-th function name of the function-name array. */
const char *pr_table_func(const struct pr_table *t, uint32_t i);
/* A string of the string table ("" for an offset out of range). */
const char *pr_table_str(const struct pr_table *t, uint32_t off);
/* The module probe i's definition names, or "" (then the object it is in is its module). */
const char *pr_table_probe_module(const struct pr_table *t, uint32_t i);
/* Byte offset within the table of a probe's sem_rel field (to resolve it against an address). */
size_t pr_table_probe_off(const struct pr_table *t, uint32_t i);

#endif /* UDT_PROC_TABLE_H */
