/* SPDX-License-Identifier: MIT */
/*
 * A test stand-in for libudtrace that exercises the contract between -G
 * objects, probe sites and the runtime (docs/format.md): it accepts table
 * registrations, checks each table, enables every probe (increments the
 * semaphores, sets udt__dispatch) and prints what the sites dispatch.
 * FAKERT_QUIET=1 registers without enabling.
 */
#include "proc/table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TABLES 16
static const struct udt_table_hdr *tables[MAX_TABLES];

typedef void (*dispatch_fn)(const volatile unsigned short *, unsigned, uint64_t, uint64_t,
			    uint64_t, uint64_t);

static const void *resolve(const int64_t *field)
{
	return (const char *)field + *field;
}

static void dispatch(const volatile unsigned short *sem, unsigned n, uint64_t a0, uint64_t a1,
		     uint64_t a2, uint64_t a3)
{
	/* up to four values in registers, more through an array in a0 */
	const uint64_t regs[4] = { a0, a1, a2, a3 };
	const uint64_t *args = n <= 4 ? regs : (const uint64_t *)(uintptr_t)a0;

	for (int t = 0; t < MAX_TABLES; t++) {
		struct pr_table ct;

		if (!tables[t] || pr_table_open(&ct, tables[t], tables[t]->total_sz))
			continue;
		for (uint32_t i = 0; i < ct.hdr.probe_cnt; i++) {
			const struct udt_table_probe *pr = pr_table_probe(&ct, i);

			if (resolve(&pr->sem_rel) != (const void *)sem)
				continue;
			printf("fakert: fire %s:%s", pr_table_str(&ct, pr_table_provider(&ct, pr->provider)->name),
			       pr_table_str(&ct, pr->name));
			for (unsigned a = 0; a < n; a++) {
				const struct udt_table_arg *ar = pr_table_arg(&ct, pr->first_narg + a);
				if (ar->kind == UDT_ARG_INT && ar->is_signed)
					printf(" %lld", (long long)args[a]);
				else if (ar->kind == UDT_ARG_INT)
					printf(" %llu", (unsigned long long)args[a]);
				else if (ar->kind == UDT_ARG_STRING || !strcmp(pr_table_str(&ct, ar->type), "const char *"))
					printf(" \"%s\"", (const char *)(uintptr_t)args[a]);
				else
					printf(" %#llx", (unsigned long long)args[a]);
			}
			printf("\n");
			fflush(stdout);
			return;
		}
	}
	printf("fakert: fire from an unknown semaphore %p\n", (const void *)sem);
}

void udt__register(const struct udt_table_hdr *h);
void udt__unregister(const struct udt_table_hdr *h);

__attribute__((visibility("default"))) void udt__register(const struct udt_table_hdr *h)
{
	struct pr_table ct;
	int r = pr_table_open(&ct, h, h->total_sz);

	if (r) {
		printf("fakert: register: bad table (%d)\n", r);
		return;
	}
	for (int t = 0; t < MAX_TABLES; t++) {
		if (tables[t])
			continue;
		tables[t] = h;
		break;
	}
	for (uint32_t p = 0; p < ct.hdr.provider_cnt; p++)
		printf("fakert: register %s (%u probes)\n",
		       pr_table_str(&ct, pr_table_provider(&ct, p)->name),
		       pr_table_provider(&ct, p)->probe_cnt);
	fflush(stdout);
	if (getenv("FAKERT_QUIET"))
		return;
	*(dispatch_fn *)resolve(&h->dispatch_rel) = dispatch;
	for (uint32_t i = 0; i < ct.hdr.probe_cnt; i++)
		__atomic_fetch_add((unsigned short *)resolve(&pr_table_probe(&ct, i)->sem_rel), 1,
				   __ATOMIC_RELAXED);
}

__attribute__((visibility("default"))) void udt__unregister(const struct udt_table_hdr *h)
{
	for (int t = 0; t < MAX_TABLES; t++)
		if (tables[t] == h)
			tables[t] = NULL;
	printf("fakert: unregister\n");
	fflush(stdout);
}
