/* SPDX-License-Identifier: MIT */
/* dtrace -G's private interfaces: the object scanner, the table builder and the ELF writer. */
#ifndef UDT_DTRACE_G_INTERNAL_H
#define UDT_DTRACE_G_INTERNAL_H

#include <stdint.h>

#include "dtrace-g/dtrace-g.h"
#include "util/util.h"

/* The probes of a program in table order (providers, then their probes). */
struct dg_probes {
	struct dl_provider *const *providers;
	size_t provider_cnt;
	const struct dl_probe **v;  /* all probes */
	size_t cnt;
	char ***funcs;              /* per probe: enclosing function names (malloc'ed) */
	size_t *func_cnt;
	size_t *func_cap;
};

void dg_probes_init(struct dg_probes *pp, struct dl_program *p);
void dg_probes_free(struct dg_probes *pp);

/* Read the probe sites of one object; records enclosing functions. 0 or -1 with *ret_err. */
int dg_scan_object(struct dg_probes *pp, const char *path, uint16_t *machine, char **ret_err);

/* A relocation in the table blob: R_X86_64_PC64 to a symbol, at off. */
enum dg_reloc_target {
	DG_RELOC_SEMAPHORE,   /* index: the probe's */
	DG_RELOC_DISPATCH,
};

struct dg_reloc {
	uint64_t off;
	enum dg_reloc_target target;
	size_t index;
};

struct dg_table {
	struct udt_strbuf blob;     /* the table's bytes */
	struct dg_reloc *relocs;
	size_t reloc_cnt, reloc_cap;
};

void dg_table_build(struct dl_program *p, const struct dg_probes *pp, struct dg_table *t);
void dg_table_free(struct dg_table *t);

/* Write the ELF object. 0 or -1 with *ret_err. */
int dg_elf_write(struct dl_program *p, const struct dg_probes *pp, const struct dg_table *t,
		 int fd, char **ret_err);

/* "prov_probe_semaphore", malloc'ed */
char *dg_semaphore_name(const struct dl_probe *pr);

#endif /* UDT_DTRACE_G_INTERNAL_H */
