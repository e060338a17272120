/* SPDX-License-Identifier: MIT */
/* The dtrace command's shared state: parsed options and the helpers main.c calls. */
#ifndef UDT_CMD_DTRACE_H
#define UDT_CMD_DTRACE_H

#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>

#include "dlang/dlang.h"
#include "util/util.h"

enum cmd_mode {
	MODE_NONE,
	MODE_HEADER,   /* -h */
	MODE_OBJECT,   /* -G */
};

struct cmd_opts {
	enum cmd_mode mode;
	const char **sources;      /* -s, in order */
	size_t source_cnt;
	const char *output;        /* -o, or NULL */
	bool cpp;                  /* -C */
	const char **cpp_args;     /* -I, -D and -U options, in order, as cpp takes them */
	size_t cpp_arg_cnt;
	enum dl_model model;       /* -32 / -64 */
	const char **objects;      /* operands: objects given to -G */
	size_t object_cnt;
	bool keep;                 /* -k (accepted; nothing temporary is kept) */
};

/* Run cpp over path; *ret_text is malloc'ed. Returns 0 or -errno (after a message). */
int cmd_cpp(const struct cmd_opts *o, const char *path, char **ret_text, size_t *ret_sz);

#endif /* UDT_CMD_DTRACE_H */
