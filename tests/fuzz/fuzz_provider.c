/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness: a provider file through dtrace -h (the D parser, the
 * type model, the header generator), as `dtrace -h -s FILE` reads it.
 */
#include "dlang/dlang.h"
#include "dtrace-h/dtrace-h.h"
#include "util/util.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dl_program *p = dl_program_new(DL_LP64);
	struct udt_strbuf out = { 0 };
	char *err = NULL;

	if (!dl_parse(p, "fuzz.d", (const char *)data, size, false) &&
	    dh_header(p, "fuzz.h", "fuzz.d", &out, &err))
		free(err);
	udt__sb_reset(&out);
	dl_program_free(p);
	return 0;
}
