/* SPDX-License-Identifier: MIT */
/*
 * The dtrace command: option parsing and dispatch.
 *
 * Build systems call it in place of SystemTap's script or illumos dtrace:
 *
 *	dtrace -h -s provider.d -o provider.h        header of probe macros
 *	dtrace -G -s provider.d -o provider.o a.o …  semaphores and probe table
 *
 * Options and operands come in any order ("-o" before or after the mode, the
 * objects last or first). Flags SystemTap's script accepts for compatibility
 * are accepted too: -64 -32 -fpic -fPIC -k and -x ARG. Outputs appear whole
 * or not at all (util/outfile.c); every error says "dtrace: ..." or
 * "file:line:col: error: ..." and exits 1; usage errors exit 2.
 */
#include "cmd/dtrace/dtrace.h"
#include "dtrace-g/dtrace-g.h"
#include "dtrace-h/dtrace-h.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define UDTRACE_VERSION "0.1"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: %s -h -s file.d [-o file.h] [-C] [-I dir] [-D name[=def]] [-U name]\n"
		"       %s -G -s file.d [-o file.o] [-C] [-I dir] [-D name[=def]] [object ...]\n"
		"\n"
		"  -h           write a C header of probe macros for the providers in file.d\n"
		"  -G           write the object with the semaphores and probe table to link\n"
		"  -s file      the D program (provider definitions)\n"
		"  -o file      output file (default: file.h or file.o in this directory)\n"
		"  -C           run the C preprocessor over the program; -I, -D, -U go to it\n"
		"  -32, -64     data model of the application (default: -64)\n"
		"  -V           print the version\n"
		"\n"
		"Accepted for compatibility and ignored: -fpic -fPIC -k -x ARG\n",
		udt__progname, udt__progname);
}

static _Noreturn void usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static _Noreturn void usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	udt__vwarn(fmt, ap);
	va_end(ap);
	usage(stderr);
	exit(2);
}

/* Options that take an argument, attached ("-ofile") or separate ("-o file"). */
static const char opts_with_arg[] = "sobIDUxXcpnPmfi";
/* Consumer options, recognised but not available in this build. */
static const char consumer_flags[] = "lqvwZSeFAa";

static void parse_args(int argc, char **argv, struct cmd_opts *o)
{
	size_t scap = 0, ccap = 0, ocap = 0;

	o->model = DL_LP64;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (a[0] != '-' || !a[1]) {
			UDT__PUSH(o->objects, o->object_cnt, ocap, a);
			continue;
		}
		/* whole-word flags first: they would read as clusters otherwise */
		if (!strcmp(a, "-64")) {
			o->model = DL_LP64;
			continue;
		}
		if (!strcmp(a, "-32")) {
			o->model = DL_ILP32;
			continue;
		}
		if (!strcmp(a, "-fpic") || !strcmp(a, "-fPIC"))
			continue;
		if (!strcmp(a, "--help")) {
			usage(stdout);
			exit(0);
		}
		if (!strcmp(a, "--")) {
			for (i++; i < argc; i++)
				UDT__PUSH(o->objects, o->object_cnt, ocap, argv[i]);
			break;
		}
		for (const char *c = a + 1; *c; c++) {
			if (strchr(opts_with_arg, *c)) {
				const char *val = c[1] ? c + 1 : NULL;

				if (!val) {
					if (++i >= argc)
						usage_error("option -%c requires an argument", *c);
					val = argv[i];
				}
				switch (*c) {
				case 's':
					UDT__PUSH(o->sources, o->source_cnt, scap, val);
					break;
				case 'o':
					o->output = val;
					break;
				case 'I':
				case 'D':
				case 'U': {
					char *opt = udt__xasprintf("-%c%s", *c, val);
					UDT__PUSH(o->cpp_args, o->cpp_arg_cnt, ccap, opt);
					break;
				}
				case 'x':
				case 'X':
					break; /* -xnolibs and other tuning: no effect on -h/-G */
				default:
					usage_error("option -%c needs the consumer, which this build "
						    "of udtrace does not have yet", *c);
				}
				break; /* the rest of the word was the argument */
			}
			switch (*c) {
			case 'h':
				if (o->mode == MODE_OBJECT)
					usage_error("-h and -G cannot be used together");
				o->mode = MODE_HEADER;
				break;
			case 'G':
				if (o->mode == MODE_HEADER)
					usage_error("-h and -G cannot be used together");
				o->mode = MODE_OBJECT;
				break;
			case 'C':
				o->cpp = true;
				break;
			case 'k':
				o->keep = true;
				break;
			case 'V':
				printf("dtrace: udtrace %s (Sun D 1.13 provider syntax)\n",
				       UDTRACE_VERSION);
				exit(0);
			default:
				if (strchr(consumer_flags, *c))
					usage_error("option -%c needs the consumer, which this build "
						    "of udtrace does not have yet", *c);
				usage_error("invalid option -- '%c'", *c);
			}
		}
	}
}

/* The default output: the first source's base name, extension replaced, in this directory. */
static char *default_output(const char *src, const char *ext)
{
	const char *base = strrchr(src, '/');
	char *name = udt__xstrdup(base ? base + 1 : src);
	char *dot = strrchr(name, '.');

	if (dot && dot != name)
		*dot = '\0';
	char *r = udt__xasprintf("%s%s", name, ext);
	free(name);
	return r;
}

static struct dl_program *load_program(const struct cmd_opts *o)
{
	struct dl_program *p = dl_program_new(o->model);

	for (size_t i = 0; i < o->source_cnt; i++) {
		const char *path = o->sources[i];
		char *text = NULL;
		size_t sz = 0;
		int err;

		if (o->cpp)
			err = cmd_cpp(o, path, &text, &sz);
		else
			err = udt__read_file(path, &text, &sz);
		if (err) {
			if (!o->cpp)
				fprintf(stderr, "%s: failed to open %s: %s\n", udt__progname, path,
					strerror(-err));
			dl_program_free(p);
			exit(1);
		}
		if (dl_parse(p, path, text, sz, o->cpp)) {
			fprintf(stderr, "%s\n", dl_program_errmsg(p));
			free(text);
			dl_program_free(p);
			exit(1);
		}
		free(text);
	}
	return p;
}

static int write_output(const char *path, const struct udt_strbuf *text,
			int (*writer)(int fd, void *ctx, char **ret_err), void *ctx)
{
	struct udt_outfile of;
	char *err = NULL;
	int r = udt__outfile_open(&of, path);

	if (r) {
		fprintf(stderr, "%s: cannot create %s: %s\n", udt__progname, path, strerror(-r));
		return 1;
	}
	if (text)
		r = udt__outfile_write(&of, text->buf, text->len);
	else if (writer(of.fd, ctx, &err))
		r = -EINVAL;
	if (!r)
		r = udt__outfile_commit(&of);
	if (r) {
		if (err)
			fprintf(stderr, "%s\n", err);
		else
			fprintf(stderr, "%s: cannot write %s: %s\n", udt__progname, path,
				strerror(-r));
		free(err);
		udt__outfile_abort(&of);
		return 1;
	}
	return 0;
}

struct object_ctx {
	struct dl_program *p;
	const struct cmd_opts *o;
};

static int object_writer(int fd, void *vctx, char **ret_err)
{
	struct object_ctx *ctx = vctx;

	return dg_object(ctx->p, ctx->o->objects, ctx->o->object_cnt, fd, ret_err);
}

int main(int argc, char **argv)
{
	struct cmd_opts o = { 0 };
	struct dl_program *p;
	char *out = NULL;
	int ret = 1;

	parse_args(argc, argv, &o);
	if (o.mode == MODE_NONE)
		usage_error("no mode given: -h writes a header, -G an object");
	if (!o.source_cnt)
		usage_error("-%c needs a D program: -s file.d", o.mode == MODE_HEADER ? 'h' : 'G');
	if (o.mode == MODE_HEADER && o.object_cnt)
		usage_error("-h takes no objects (\"%s\")", o.objects[0]);

	p = load_program(&o);
	out = o.output ? udt__xstrdup(o.output)
		       : default_output(o.sources[0], o.mode == MODE_HEADER ? ".h" : ".o");

	if (o.mode == MODE_HEADER) {
		struct udt_strbuf text = { 0 };
		char *err = NULL;

		if (dh_header(p, out, o.sources[0], &text, &err)) {
			fprintf(stderr, "%s\n", err);
			free(err);
		} else {
			ret = write_output(out, &text, NULL, NULL);
		}
		udt__sb_reset(&text);
	} else {
		struct object_ctx ctx = { p, &o };

		ret = write_output(out, NULL, object_writer, &ctx);
	}
	free(out);
	dl_program_free(p);
	for (size_t i = 0; i < o.cpp_arg_cnt; i++)
		free((char *)o.cpp_args[i]);
	free(o.cpp_args);
	free(o.sources);
	free(o.objects);
	return ret;
}
