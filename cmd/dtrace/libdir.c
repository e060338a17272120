/* SPDX-License-Identifier: MIT */
/*
 * D libraries: the provider support files (structures and translators) that
 * dtrace reads before a script, as DTrace reads /usr/lib/dtrace.
 *
 * The directories, in order: each -L, then -x libdir, then the default one
 * (unless -x nolibs): provider-support/ of the source tree when dtrace runs
 * from its build directory, else the installed one, found from the
 * executable's directory as `make install` laid them out (so that a staged
 * or moved installation finds its own: docs/install.md). A library is
 * known by its file name; the first directory that has a name wins. Libraries
 * are parsed so that each comes after those it names in "#pragma D
 * depends_on library x.d", and otherwise in name order. A library declares;
 * a probe clause in one is an error.
 */
#include "cmd/dtrace/dtrace.h"
#include "udtrace_paths.h"
#include "util/util.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct lib {
	char *name;                /* "http.d" */
	char *path;
	char *text;
	size_t len;
	char **deps;               /* the libraries it depends on */
	size_t dep_cnt, dep_cap;
	int state;                 /* 0 not yet, 1 being loaded, 2 loaded */
};

struct libs {
	struct lib *v;
	size_t cnt, cap;
};

static _Noreturn void lib_fatal(struct dl_program *p, struct libs *ls, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static _Noreturn void lib_fatal(struct dl_program *p, struct libs *ls, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", udt__progname);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	(void)ls;
	dl_program_free(p);
	exit(1); /* as a script that does not compile */
}

static bool is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/*
 * The default library directory: provider-support/ of the source tree, when
 * this dtrace is its build's (build/bin/dtrace, build/asan/bin/dtrace: the
 * nearest directory above the executable's with a Makefile and a
 * provider-support/), else the installed one.
 */
static char *default_libdir(void)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	*strrchr(exe, '/') = '\0';
	char *installed = udt__xasprintf("%s/" UDT_BIN_TO_DATA "/provider-support", exe);
	for (int up = 1; up < 4; up++) {
		char *slash = strrchr(exe, '/');
		if (!slash || slash == exe)
			break;
		*slash = '\0';
		if (up < 2)
			continue; /* (the build directory itself) */
		char *dir = udt__xasprintf("%s/provider-support", exe);
		char *mk = udt__xasprintf("%s/Makefile", exe);
		bool ok = is_dir(dir) && !access(mk, R_OK);
		free(mk);
		if (ok) {
			free(installed);
			return dir;
		}
		free(dir);
	}
	return installed;
}

/* The names "#pragma D depends_on library NAME" lines give. */
static void scan_deps(struct lib *l)
{
	const char *p = l->text;

	while (p && *p) {
		const char *eol = strchr(p, '\n');
		size_t n = eol ? (size_t)(eol - p) : strlen(p);
		char line[512], word[5][128];
		if (n < sizeof(line)) {
			memcpy(line, p, n);
			line[n] = '\0';
			if (sscanf(line, " #pragma D %127s %127s %127s", word[0], word[1], word[2]) == 3 &&
			    !strcmp(word[0], "depends_on") && !strcmp(word[1], "library")) {
				char *dep = udt__xstrdup(word[2]);
				UDT__PUSH(l->deps, l->dep_cnt, l->dep_cap, dep);
			}
		}
		p = eol ? eol + 1 : NULL;
	}
}

static void add_dir(struct dl_program *p, struct libs *ls, const char *dir, bool must_exist)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d) {
		if (must_exist)
			lib_fatal(p, ls, "cannot read library directory %s: %s", dir, strerror(errno));
		return;
	}
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);
		bool known = false;
		if (n < 3 || strcmp(de->d_name + n - 2, ".d") || de->d_name[0] == '.')
			continue;
		for (size_t i = 0; i < ls->cnt && !known; i++)
			known = !strcmp(ls->v[i].name, de->d_name);
		if (known)
			continue; /* an earlier directory's wins */
		struct lib l = { .name = udt__xstrdup(de->d_name) };
		l.path = udt__xasprintf("%s/%s", dir, de->d_name);
		if (udt__read_file(l.path, &l.text, &l.len))
			lib_fatal(p, ls, "cannot read library %s", l.path);
		scan_deps(&l);
		UDT__PUSH(ls->v, ls->cnt, ls->cap, l);
	}
	closedir(d);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct lib *)a)->name, ((const struct lib *)b)->name);
}

static void load_one(struct dl_program *p, struct libs *ls, struct lib *l)
{
	size_t before, after;

	if (l->state == 2)
		return;
	if (l->state == 1)
		lib_fatal(p, ls, "library %s: circular dependency (#pragma D depends_on)", l->name);
	l->state = 1;
	for (size_t i = 0; i < l->dep_cnt; i++) {
		struct lib *dep = NULL;
		for (size_t k = 0; k < ls->cnt && !dep; k++)
			if (!strcmp(ls->v[k].name, l->deps[i]))
				dep = &ls->v[k];
		if (!dep)
			lib_fatal(p, ls, "library %s depends on library %s, which is not in the "
				  "library path", l->path, l->deps[i]);
		load_one(p, ls, dep);
	}
	(void)dl_program_clauses(p, &before);
	if (dl_parse(p, l->path, l->text, l->len, false))
		lib_fatal(p, ls, "failed to compile library %s: %s", l->path, dl_program_errmsg(p));
	(void)dl_program_clauses(p, &after);
	if (after != before)
		lib_fatal(p, ls, "library %s may not contain probe clauses", l->path);
	l->state = 2;
}

void cmd_load_libraries(const struct cmd_opts *o, struct dl_program *p)
{
	struct libs ls = { 0 };
	const char *libdir = NULL;
	bool nolibs = false;

	/* -x libdir and -x nolibs act before the script is read, so they come from -x only */
	for (size_t i = 0; i < o->xopt_cnt; i++) {
		if (!strncmp(o->xopts[i], "libdir=", 7))
			libdir = o->xopts[i] + 7;
		nolibs |= !strcmp(o->xopts[i], "nolibs");
	}
	for (size_t i = 0; i < o->libdir_cnt; i++)
		add_dir(p, &ls, o->libdirs[i], true);
	if (libdir)
		add_dir(p, &ls, libdir, true);
	if (!nolibs && !libdir) {
		char *dir = default_libdir();
		if (dir)
			add_dir(p, &ls, dir, false);
		free(dir);
	}
	if (ls.cnt > 1)
		qsort(ls.v, ls.cnt, sizeof(*ls.v), by_name);
	for (size_t i = 0; i < ls.cnt; i++)
		load_one(p, &ls, &ls.v[i]);
	for (size_t i = 0; i < ls.cnt; i++) {
		for (size_t k = 0; k < ls.v[i].dep_cnt; k++)
			free(ls.v[i].deps[k]);
		free(ls.v[i].deps);
		free(ls.v[i].name);
		free(ls.v[i].path);
		free(ls.v[i].text);
	}
	free(ls.v);
}
