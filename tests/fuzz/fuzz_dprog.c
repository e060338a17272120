/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness: a D program through the compiler and the verifier, as
 * `dtrace -e -s FILE` compiles it with no process (BEGIN, END and tick-n
 * clauses; any other probe description is an error).
 */
#include "consumer/consumer.h"
#include "dlang/dlang.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *devnull;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dl_program *p = dl_program_new(DL_LP64);
	struct cs_trace *t = NULL;
	struct cs_opts o;
	char *err = NULL;

	if (!devnull)
		devnull = fopen("/dev/null", "w");
	cs_opts_init(&o);
	if (!dl_parse(p, "fuzz.d", (const char *)data, size, false)) {
		if (cs_trace_open(&t, p, NULL, &o, devnull, &err) == 0)
			cs_trace_close(t);
		free(err);
	}
	dl_program_free(p);
	return 0;
}
