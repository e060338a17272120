/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness: an object file through dtrace -G's ELF reading (libelf,
 * the .note.stapsdt notes, the symbols and relocations it checks the probe
 * sites with), as `dtrace -G -s prov.d -o out.o OBJECT` reads it.
 */
#include "dlang/dlang.h"
#include "dtrace-g/dtrace-g.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The provider of the runtime tests' program, whose objects are the seeds. */
static const char provider[] =
	"provider rt {\n"
	"	probe tick(int thread, long seq);\n"
	"	probe bad(int *p);\n"
	"	probe once(int x, const char *what);\n"
	"	probe sig(int n);\n"
	"};\n";

static struct dl_program *prog;
static int in_fd = -1, out_fd = -1;
static char in_path[64];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *err = NULL;

	if (!prog) {
		prog = dl_program_new(DL_LP64);
		if (dl_parse(prog, "rt.d", provider, sizeof(provider) - 1, false))
			abort();
		in_fd = memfd_create("fuzz-in", MFD_CLOEXEC);
		out_fd = memfd_create("fuzz-out", MFD_CLOEXEC);
		if (in_fd < 0 || out_fd < 0)
			abort();
		snprintf(in_path, sizeof(in_path), "/proc/self/fd/%d", in_fd);
	}
	const char *objs[1] = { in_path };
	if (ftruncate(in_fd, 0) || pwrite(in_fd, data, size, 0) != (ssize_t)size ||
	    ftruncate(out_fd, 0))
		abort();
	if (dg_object(prog, objs, 1, out_fd, &err))
		free(err);
	return 0;
}
