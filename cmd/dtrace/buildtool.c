/* SPDX-License-Identifier: MIT */
/*
 * dtrace -h and dtrace -G: read the definitions, write the header or the
 * object, whole or not at all (util/outfile.c).
 */
#include "cmd/dtrace/dtrace.h"
#include "dtrace-g/dtrace-g.h"
#include "dtrace-h/dtrace-h.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cmd_load_sources(const struct cmd_opts *o, struct dl_program *p)
{
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
			fprintf(stderr, "%s: %s%s\n", udt__progname, cmd_errtag(o, dl_program_errmsg(p)),
				dl_program_errmsg(p));
			free(text);
			dl_program_free(p);
			exit(1);
		}
		free(text);
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

int cmd_header(struct cmd_opts *o)
{
	struct dl_program *p = dl_program_new(o->model);
	char *out, *err = NULL;
	struct udt_strbuf text = { 0 };
	int ret = 1;

	cmd_load_sources(o, p);
	out = o->output ? udt__xstrdup(o->output) : default_output(o->sources[0], ".h");
	if (dh_header(p, out, o->sources[0], &text, &err)) {
		fprintf(stderr, "%s\n", err);
		free(err);
	} else {
		ret = write_output(out, &text, NULL, NULL);
	}
	udt__sb_reset(&text);
	free(out);
	dl_program_free(p);
	return ret;
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

int cmd_object(struct cmd_opts *o)
{
	struct dl_program *p = dl_program_new(o->model);
	char *out;
	int ret;

	cmd_load_sources(o, p);
	out = o->output ? udt__xstrdup(o->output) : default_output(o->sources[0], ".o");
	struct object_ctx ctx = { p, o };
	ret = write_output(out, NULL, object_writer, &ctx);
	free(out);
	dl_program_free(p);
	return ret;
}
