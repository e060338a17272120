/* SPDX-License-Identifier: MIT */
/*
 * tabledump FILE: print the probe tables of an ELF file (an object from
 * dtrace -G, or an executable or library linked with one), for the tests.
 * Semaphore addresses are resolved from the self-relative fields, so in a
 * linked file they must equal the semaphore symbols' addresses.
 */
#include "proc/table.h"
#include "dlang/dlang.h"

#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char *const attr_names[] = { "provider", "module", "function", "name", "args" };

static void dump(const struct pr_table *t, uint64_t addr)
{
	for (uint32_t i = 0; i < t->hdr.provider_cnt; i++) {
		const struct udt_table_provider *pv = pr_table_provider(t, i);

		printf("provider %s\n", pr_table_str(t, pv->name));
		for (int w = 0; w < UDT_ATTR_CNT; w++)
			printf("  attributes %s: %s/%s/%s\n", attr_names[w],
			       dl_stability_name(pv->attr[w][0]), dl_stability_name(pv->attr[w][1]),
			       dl_class_name(pv->attr[w][2]));
		for (uint32_t k = pv->first_probe; k < pv->first_probe + pv->probe_cnt; k++) {
			const struct udt_table_probe *pr = pr_table_probe(t, k);
			uint64_t field = addr + pr_table_probe_off(t, k);

			printf("probe %s:%s nargs=%u semaphore=0x%llx", pr_table_str(t, pv->name),
			       pr_table_str(t, pr->name), pr->narg_cnt,
			       (unsigned long long)(field + (uint64_t)pr->sem_rel));
			for (uint32_t f = 0; f < pr->func_cnt; f++)
				printf("%s%s", f ? "," : " functions=", pr_table_func(t, pr->first_func + f));
			printf("\n");
			for (uint32_t a = 0; a < pr->narg_cnt; a++) {
				const struct udt_table_arg *ar = pr_table_arg(t, pr->first_narg + a);
				printf("  arg%u: %s%s%s kind=%u size=%u%s\n", a, pr_table_str(t, ar->type),
				       ar->name ? " " : "", pr_table_str(t, ar->name), ar->kind,
				       ar->size, ar->is_signed ? " signed" : "");
			}
			if (pr->flags & UDT_PROBE_TRANSLATED) {
				for (uint32_t a = 0; a < pr->xarg_cnt; a++) {
					const struct udt_table_arg *ar =
						pr_table_arg(t, pr->first_xarg + a);
					printf("  xarg%u: %s%s%s <- arg%u\n", a,
					       pr_table_str(t, ar->type), ar->name ? " " : "",
					       pr_table_str(t, ar->name), ar->mapping);
				}
			}
		}
	}
	printf("dispatch=0x%llx\n",
	       (unsigned long long)(addr + offsetof(struct udt_table_hdr, dispatch_rel) +
				    (uint64_t)t->hdr.dispatch_rel));
}

int main(int argc, char **argv)
{
	int fd, tables = 0;
	Elf *e;
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (argc != 2) {
		fprintf(stderr, "usage: tabledump FILE\n");
		return 2;
	}
	elf_version(EV_CURRENT);
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || !(e = elf_begin(fd, ELF_C_READ, NULL)) || elf_getshdrstrndx(e, &shstrndx)) {
		fprintf(stderr, "tabledump: %s: cannot read\n", argv[1]);
		return 1;
	}
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) ||
		    strcmp(elf_strptr(e, shstrndx, sh.sh_name), UDT_TABLE_SECTION))
			continue;
		d = elf_getdata(scn, NULL);
		/* A linked file concatenates the tables of all its -G objects, 8-aligned. */
		for (size_t off = 0; d && off < d->d_size;) {
			struct pr_table t;
			int r = pr_table_open(&t, (const char *)d->d_buf + off, d->d_size - off);

			if (r) {
				fprintf(stderr, "tabledump: %s: bad table at offset %zu (%d)\n",
					argv[1], off, r);
				return 1;
			}
			dump(&t, sh.sh_addr + off);
			tables++;
			off += (t.hdr.total_sz + 7) & ~7u;
		}
	}
	if (!tables)
		printf("no probe table\n");
	elf_end(e);
	close(fd);
	return 0;
}
