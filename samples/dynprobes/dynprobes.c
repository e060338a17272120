/* SPDX-License-Identifier: MIT */
/*
 * dynprobes: what a scripting language's binding to udtrace/udtrace.h does,
 * in C. At start-up it reads probe declarations from a text file, creates
 * the provider and its probes, loads it, and then runs the file's "fire"
 * lines, converting each value from text by the probe's declared types, as
 * an interpreter would convert its own values, and firing through
 * udt_probe_firev(), the array form bindings use.
 *
 *	dynprobes FILE [ROUNDS [PAUSE_MS]]
 *
 * runs the fire lines ROUNDS times (default 1; 0: until interrupted),
 * PAUSE_MS milliseconds apart (default 100), and prints "ready PID" and the
 * object's path (for bpftrace) on stderr once the probes are loaded.
 *
 * The file (see shop.probes):
 *	# a comment
 *	provider NAME [MODULE]
 *	probe FUNC NAME TYPE...        FUNC "-" for none; TYPEs: int8 uint8 int16
 *	                               uint16 int32 uint32 int64 uint64 string
 *	                               pointer double
 *	fire NAME VALUE...             a string value is one word or "quoted"
 * Errors say FILE:LINE: what is wrong, and the program exits 1.
 */
#include <udtrace/udtrace.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_PROBES 64
#define MAX_FIRES 256
#define MAX_WORDS (UDT_PROBE_MAX_ARGS + 3)

struct decl {
	char *name;
	struct udt_probe *probe;
	enum udt_type types[UDT_PROBE_MAX_ARGS];
	size_t ntypes;
};

struct fire {
	struct decl *d;
	union udt_value v[UDT_PROBE_MAX_ARGS];
	char *strs[UDT_PROBE_MAX_ARGS]; /* owned copies of string values */
};

static const struct {
	const char *name;
	enum udt_type type;
} type_names[] = {
	{ "int8", UDT_TYPE_INT8 },     { "uint8", UDT_TYPE_UINT8 },   { "int16", UDT_TYPE_INT16 },
	{ "uint16", UDT_TYPE_UINT16 }, { "int32", UDT_TYPE_INT32 },   { "uint32", UDT_TYPE_UINT32 },
	{ "int64", UDT_TYPE_INT64 },   { "uint64", UDT_TYPE_UINT64 }, { "string", UDT_TYPE_STRING },
	{ "pointer", UDT_TYPE_POINTER }, { "double", UDT_TYPE_DOUBLE },
};

static const char *file;
static int lineno;

static void die(const char *fmt, const char *arg)
{
	fprintf(stderr, "%s:%d: ", file, lineno);
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	exit(1);
}

/* Split line into words in place; "quoted strings" are one word. Returns the count. */
static size_t split(char *line, char **w)
{
	size_t n = 0;
	char *p = line;

	while (*p && n < MAX_WORDS) {
		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		if (!*p || *p == '#')
			break;
		if (*p == '"') {
			char *end = strchr(++p, '"');

			if (!end)
				die("unterminated string: %s", p - 1);
			*end = '\0';
			w[n++] = p;
			p = end + 1;
			continue;
		}
		w[n++] = p;
		p += strcspn(p, " \t\n");
		if (*p)
			*p++ = '\0';
	}
	return n;
}

static enum udt_type type_of(const char *s)
{
	for (size_t i = 0; i < sizeof(type_names) / sizeof(type_names[0]); i++)
		if (!strcmp(type_names[i].name, s))
			return type_names[i].type;
	die("unknown type '%s'", s);
	return UDT_TYPE_INT64;
}

/* A value of type t from text, as a binding converts a script's value. */
static void convert(enum udt_type t, const char *s, union udt_value *v, char **owned)
{
	char *end = NULL;

	errno = 0;
	switch (t) {
	case UDT_TYPE_STRING:
		*owned = strdup(s);
		if (!*owned)
			die("out of memory%s", "");
		v->s = *owned;
		return;
	case UDT_TYPE_POINTER:
		v->p = (const void *)(uintptr_t)strtoull(s, &end, 0);
		break;
	case UDT_TYPE_DOUBLE:
		v->d = strtod(s, &end);
		break;
	case UDT_TYPE_UINT8:
	case UDT_TYPE_UINT16:
	case UDT_TYPE_UINT32:
	case UDT_TYPE_UINT64:
		v->u = strtoull(s, &end, 0);
		break;
	default:
		v->i = strtoll(s, &end, 0);
		break;
	}
	if (errno || !end || *end || end == s)
		die("not a value of the probe's type: '%s'", s);
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

int main(int argc, char **argv)
{
	static struct decl decls[MAX_PROBES];
	static struct fire fires[MAX_FIRES];
	struct udt_provider *prov = NULL;
	size_t ndecls = 0, nfires = 0;
	char line[1024], *w[MAX_WORDS], path[64];
	long rounds = argc > 2 ? atol(argv[2]) : 1, pause = argc > 3 ? atol(argv[3]) : 100;
	FILE *f;
	int err;

	if (argc < 2) {
		fprintf(stderr, "usage: dynprobes FILE [ROUNDS [PAUSE_MS]]\n");
		return 2;
	}
	file = argv[1];
	f = fopen(file, "r");
	if (!f) {
		fprintf(stderr, "dynprobes: %s: %s\n", file, strerror(errno));
		return 1;
	}
	while (fgets(line, sizeof(line), f)) {
		size_t n;

		lineno++;
		n = split(line, w);
		if (!n)
			continue;
		if (!strcmp(w[0], "provider") && (n == 2 || n == 3)) {
			struct udt_provider_opts o = { sizeof(o), n == 3 ? w[2] : NULL, 0 };

			if (prov)
				die("a second provider: %s", w[1]);
			err = udt_provider_create(w[1], &o, &prov);
			if (err)
				die("provider: %s", strerror(-err));
		} else if (!strcmp(w[0], "probe") && n >= 3) {
			struct decl *d = &decls[ndecls];

			if (!prov || ndecls == MAX_PROBES)
				die("%s", prov ? "too many probes" : "a probe before the provider");
			d->ntypes = n - 3;
			for (size_t i = 3; i < n; i++)
				d->types[i - 3] = type_of(w[i]);
			err = udt_provider_add_probe(prov, strcmp(w[1], "-") ? w[1] : NULL, w[2],
						     d->types, d->ntypes, &d->probe);
			if (err)
				die("probe: %s", strerror(-err));
			d->name = strdup(w[2]);
			ndecls++;
		} else if (!strcmp(w[0], "fire") && n >= 2) {
			struct fire *fi = &fires[nfires];

			for (size_t i = 0; i < ndecls && !fi->d; i++)
				if (!strcmp(decls[i].name, w[1]))
					fi->d = &decls[i];
			if (!fi->d || nfires == MAX_FIRES)
				die("no such probe, or too many fire lines: %s", w[1]);
			if (n - 2 != fi->d->ntypes)
				die("wrong number of values for %s", w[1]);
			for (size_t i = 2; i < n; i++)
				convert(fi->d->types[i - 2], w[i], &fi->v[i - 2], &fi->strs[i - 2]);
			nfires++;
		} else {
			die("cannot read this line: %s", w[0]);
		}
	}
	fclose(f);
	if (!prov)
		die("no provider%s", "");
	err = udt_provider_load(prov);
	if (err) {
		fprintf(stderr, "dynprobes: loading the provider: %s\n", strerror(-err));
		return 1;
	}
	if (udt_provider_path(prov, path, sizeof(path)) < 0)
		strcpy(path, "(none: udtrace only)");
	fprintf(stderr, "path %s\nready %d\n", path, (int)getpid());
	for (long r = 0; !rounds || r < rounds; r++) {
		for (size_t i = 0; i < nfires; i++)
			if (udt_probe_enabled(fires[i].d->probe))
				udt_probe_firev(fires[i].d->probe, fires[i].v, fires[i].d->ntypes);
		if (pause)
			sleep_ms(pause);
	}
	udt_provider_free(prov);
	for (size_t i = 0; i < ndecls; i++)
		free(decls[i].name);
	for (size_t i = 0; i < nfires; i++)
		for (size_t k = 0; k < UDT_PROBE_MAX_ARGS; k++)
			free(fires[i].strs[k]);
	return 0;
}
