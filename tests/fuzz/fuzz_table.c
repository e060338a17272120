/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness: a probe table (abi/probe_table.h) through the
 * consumer's reader, as it reads one from a file or from a process: copied
 * into a buffer of its own, checked, then every record read.
 */
#include "proc/table.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile size_t sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy = malloc(size ? size : 1);
	struct pr_table t;
	size_t sum = 0;

	memcpy(copy, data, size);
	if (pr_table_open(&t, copy, size) == 0) {
		for (uint32_t i = 0; i < t.hdr.provider_cnt; i++)
			sum += strlen(pr_table_str(&t, pr_table_provider(&t, i)->name));
		for (uint32_t i = 0; i < t.hdr.probe_cnt; i++) {
			const struct udt_table_probe *pr = pr_table_probe(&t, i);
			sum += strlen(pr_table_str(&t, pr->name)) + strlen(pr_table_probe_module(&t, i));
			sum += (size_t)pr->sem_rel + pr_table_probe_off(&t, i);
			for (uint32_t a = 0; a < pr->narg_cnt; a++)
				sum += strlen(pr_table_str(&t, pr_table_arg(&t, pr->first_narg + a)->type));
			for (uint32_t a = 0; a < pr->xarg_cnt; a++)
				sum += pr_table_arg(&t, pr->first_xarg + a)->mapping;
			for (uint32_t f = 0; f < pr->func_cnt; f++)
				sum += strlen(pr_table_func(&t, pr->first_func + f));
		}
	}
	free(copy);
	sink = sum; /* (used: nothing is optimised away) */
	return 0;
}
