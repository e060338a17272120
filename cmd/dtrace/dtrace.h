/* SPDX-License-Identifier: MIT */
/*
 * cmd: the commands. dtrace owns the command line (parsed options), the
 * build tool's and the consumer's dispatch, and the main loop; this header
 * is its shared state and the helpers main.c calls. plockstat
 * (cmd/plockstat/) is a front end that runs the dtrace beside it. It includes
 * consumer/ (to trace), probes/ and proc/ (to list probes, and to grab a
 * process), dtrace-h/, dtrace-g/, dlang/ and util/; it is never included by
 * another room (docs/layout.md).
 */
#ifndef UDT_CMD_DTRACE_H
#define UDT_CMD_DTRACE_H

#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "consumer/consumer.h"
#include "probes/probes.h"
#include "proc/proc.h"
#include "dlang/dlang.h"
#include "util/util.h"

enum cmd_mode {
	MODE_NONE,
	MODE_HEADER,   /* -h */
	MODE_OBJECT,   /* -G */
	MODE_LIST,     /* -l */
	MODE_TRACE,    /* -n, -s, -P, -m, -f, -i without -h/-G/-l */
};

/* A piece of D from the command line, in order: -s FILE, -n TEXT, -P/-m/-f NAME. */
struct cmd_prog {
	char kind;                 /* 's', 'n', 'P', 'm', 'f', 'i' */
	const char *arg;
	size_t first_clause;       /* the clauses it gave the program (load_program()) */
	size_t clause_cnt;
	bool empty;                /* no declaration nor clause: an error, unless -x empty */
};

struct cmd_opts {
	enum cmd_mode mode;
	struct cmd_prog *progs;
	size_t prog_cnt;
	const char **sources;      /* the -s files, in order */
	size_t source_cnt;
	const char *output;        /* -o, or NULL */
	bool cpp;                  /* -C, -x cpp */
	bool cpphdrs;              /* -H, -x cpphdrs: cpp prints the files it includes */
	char stdc;                 /* -X, -x stdc: a c s t, or 0 (cpp's default) */
	const char *cpppath;       /* -x cpppath, or NULL ($CPP, or cpp) */
	const char **cmd_env;      /* -x setenv=N=V and -x unsetenv=N, in order, for -c */
	size_t cmd_env_cnt;
	const char **cpp_args;     /* -I, -D and -U options, in order, as cpp takes them */
	size_t cpp_arg_cnt;
	enum dl_model model;       /* -32 / -64 */
	const char **objects;      /* operands: objects given to -G */
	size_t object_cnt;
	bool keep;                 /* -k (accepted; nothing temporary is kept) */
	bool verbose;              /* -v */
	bool exit_after_compile;   /* -e */
	pid_t pid;                 /* -p */
	const char *command;       /* -c */
	struct cs_opts copts;      /* consumer options: -q -b -x -Z -w */
	const char **xopts;        /* -x name=value, applied after the program's pragmas */
	size_t xopt_cnt;
	const char **libdirs;      /* -L, in order, searched before -x libdir and the default */
	size_t libdir_cnt;
};

/*
 * Parse the D libraries into p before the script: every .d file of the -L
 * directories, of -x libdir, and of the default library directory (unless
 * -x nolibs), in "#pragma D depends_on library" order. Exits with a message
 * on an error.
 */
void cmd_load_libraries(const struct cmd_opts *o, struct dl_program *p);

/* Run cpp over path; *ret_text is malloc'ed. Returns 0 or -errno (after a message). */
int cmd_cpp(const struct cmd_opts *o, const char *path, char **ret_text, size_t *ret_sz);

/* Parse the -s files (through cpp with -C) into p; exits with a message on error. */
void cmd_load_sources(const struct cmd_opts *o, struct dl_program *p);
/*
 * A compile error's tag for -x errtags ("[D_SYNTAX] ", from -x or the
 * program's #pragma D option), or "". The string is static.
 */
const char *cmd_errtag(const struct cmd_opts *o, const char *msg);

/* -h and -G (buildtool.c). Return the exit status. */
int cmd_header(struct cmd_opts *o);
int cmd_object(struct cmd_opts *o);

/* -l and tracing (trace.c). Return the exit status. */
int cmd_list(struct cmd_opts *o);
int cmd_trace(struct cmd_opts *o);
/* -e with no program: the -x options checked (as DTrace sets them). Returns the exit status. */
int cmd_check_options(struct cmd_opts *o);

#endif /* UDT_CMD_DTRACE_H */
