/* SPDX-License-Identifier: MIT */
/*
 * plockstat(1): lock contention and hold times of a process, as illumos's
 * plockstat(1M) reports them (docs/plockstat.md). It writes a D program on
 * the plockstat provider (probes/libc.c), runs the dtrace beside it
 * with that program on -p's process or on the command given, its output as
 * JSON Lines (-x oformat=jsonl: a record a line, read as it comes), and prints what
 * the program's aggregations hold as plockstat's tables:
 *
 *	Mutex block
 *
 *	Count     nsec Lock                         Caller
 *	-------------------------------------------------------------------------------
 *	    4  1009310 locks`m_block                locks`block_one+0x36
 *
 * Each table's rows are keyed by the lock (uaddr(): module`variable where it
 * is a global) and the stack of the event (ustack(5), or -s's depth); the
 * Caller is its first frame that is not the C library's lock code; the
 * hottest (the most time in all) come first. dtrace's messages are passed on
 * as plockstat's.
 */
#include "util/util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define OPTSTR "n:ps:e:vx:ACHV"

static const char *pname = "plockstat";

static _Noreturn void usage(void)
{
	fprintf(stderr,
		"Usage:\n"
		"\t%s [-vACHV] [-n count] [-s depth] [-e secs] [-x opt[=val]]\n"
		"\t    command [arg...]\n"
		"\t%s [-vACHV] [-n count] [-s depth] [-e secs] [-x opt[=val]]\n"
		"\t    -p pid\n", pname, pname);
	exit(2);
}

/* -- The D program ---------------------------------------------------------------------------- */

/*
 * The tables: each an aggregation family (name_s: the time, name_c: the
 * count, name_q with -s: its distribution), its title, and what fills it.
 * Contention is timed per thread (several threads block on one lock); a
 * mutex's hold globally (one thread may release what another acquired), a
 * rwlock's per thread (many hold it for reading), as illumos's plockstat does.
 */
struct table {
	const char *agg, *title;
	bool hold;                 /* -H's (else -C's) */
	const char *probe, *pred, *start;
};

static const struct table tables[] = {
	{ "mtx_hold", "Mutex hold", true, "mutex-release", "mtxhold[arg0] && arg1 == 0",
	  "mtxhold[arg0]" },
	{ "rw_r_hold", "R/W reader hold", true, "rw-release", "self->rwhold[arg0] && arg1 == 0",
	  "self->rwhold[arg0]" },
	{ "rw_w_hold", "R/W writer hold", true, "rw-release", "self->rwhold[arg0] && arg1 == 1",
	  "self->rwhold[arg0]" },
	{ "mtx_block", "Mutex block", false, "mutex-blocked", "self->mtxblock[arg0] && arg1 != 0",
	  "self->mtxblock[arg0]" },
	{ "mtx_spin", "Mutex spin", false, "mutex-spun", "self->mtxspin[arg0] && arg1 != 0",
	  "self->mtxspin[arg0]" },
	{ "mtx_vain_spin", "Mutex unsuccessful spin", false, "mutex-spun",
	  "self->mtxspin[arg0] && arg1 == 0", "self->mtxspin[arg0]" },
	{ "rw_r_block", "R/W reader block", false, "rw-blocked",
	  "self->rwblock[arg0] && arg1 == 0 && arg2 != 0", "self->rwblock[arg0]" },
	{ "rw_w_block", "R/W writer block", false, "rw-blocked",
	  "self->rwblock[arg0] && arg1 == 1 && arg2 != 0", "self->rwblock[arg0]" },
};
#define NTABLES (sizeof(tables) / sizeof(*tables))

/* The program: hold times, contention, stacks of depth (distributions: dists), -e's secs. */
static void program(struct udt_strbuf *p, bool hold, bool ctnd, unsigned long depth, bool dists,
		    const char *secs)
{
	if (secs)
		udt__sb_printf(p, "tick-%ss\n{\n\texit(0);\n}\n\n", secs);
	if (hold)
		udt__sb_puts(p, "plockstat$target:::rw-acquire\n{\n\tself->rwhold[arg0] = timestamp;\n}\n\n"
			     "plockstat$target:::mutex-acquire\n/arg1 == 0/\n{\n"
			     "\tmtxhold[arg0] = timestamp;\n}\n\n");
	if (ctnd)
		udt__sb_puts(p, "plockstat$target:::rw-block\n{\n\tself->rwblock[arg0] = timestamp;\n}\n\n"
			     "plockstat$target:::mutex-block\n{\n\tself->mtxblock[arg0] = timestamp;\n}\n\n"
			     "plockstat$target:::mutex-spin\n{\n\tself->mtxspin[arg0] = timestamp;\n}\n\n");
	for (size_t i = 0; i < NTABLES; i++) {
		const struct table *t = &tables[i];
		if (t->hold ? !hold : !ctnd)
			continue;
		udt__sb_printf(p, "plockstat$target:::%s\n/%s/\n{\n", t->probe, t->pred);
		udt__sb_printf(p, "\t@%s_s[uaddr(arg0), ustack(%lu)] = sum(timestamp - %s);\n", t->agg,
			       depth, t->start);
		udt__sb_printf(p, "\t@%s_c[uaddr(arg0), ustack(%lu)] = count();\n", t->agg, depth);
		if (dists)
			udt__sb_printf(p, "\t@%s_q[uaddr(arg0), ustack(%lu)] = quantize(timestamp - %s);\n",
				       t->agg, depth, t->start);
		udt__sb_printf(p, "\t%s = 0;\n}\n\n", t->start);
	}
	/* the blocks and spins that ended otherwise are forgotten */
	if (ctnd)
		udt__sb_puts(p, "plockstat$target:::rw-blocked\n{\n\tself->rwblock[arg0] = 0;\n}\n\n"
			     "plockstat$target:::mutex-blocked\n{\n\tself->mtxblock[arg0] = 0;\n}\n\n");
	udt__sb_puts(p, "END\n{\n");
	for (size_t i = 0; i < NTABLES; i++) {
		const struct table *t = &tables[i];
		if (t->hold ? !hold : !ctnd)
			continue;
		udt__sb_printf(p, "\tprinta(@%s_s, @%s_c);\n", t->agg, t->agg);
		if (dists)
			udt__sb_printf(p, "\tprinta(@%s_q);\n", t->agg);
	}
	udt__sb_puts(p, "}\n");
}

/* -- What dtrace printed ---------------------------------------------------------------------- */

struct row {
	char *lock;
	char **frames;             /* the stack's, top first */
	size_t nframes;
	uint64_t sum, count;
	struct json_object *buckets; /* -s: the distribution's, or NULL */
};

struct tab {
	struct row *v;
	size_t cnt, cap;
};

static struct tab found[NTABLES];

/*
 * What dtrace printed, read as it may be (its output may hold what the traced
 * command wrote into it too): member name of o if it is an array, or NULL;
 * a string's text, or "?".
 */
static struct json_object *arr(struct json_object *o, const char *name)
{
	struct json_object *v;

	return o && json_object_object_get_ex(o, name, &v) && json_object_is_type(v, json_type_array)
		       ? v : NULL;
}

static const char *str(struct json_object *o)
{
	const char *s = o && json_object_is_type(o, json_type_string) ? json_object_get_string(o)
								       : NULL;
	return s ? s : "?";
}

static size_t alen(struct json_object *a)
{
	return a && json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;
}

static int table_of(const char *agg, size_t *len_out)
{
	for (size_t i = 0; i < NTABLES; i++) {
		size_t n = strlen(tables[i].agg);
		if (!strncmp(agg, tables[i].agg, n) && agg[n] == '_') {
			*len_out = n;
			return (int)i;
		}
	}
	return -1;
}

/* A frame's text: its "symbol" member. */
static const char *frame_of(struct json_object *stack, size_t i)
{
	struct json_object *f = json_object_array_get_idx(stack, i), *s;

	return f && json_object_object_get_ex(f, "symbol", &s) ? str(s) : "?";
}

static bool same_key(const struct row *r, const char *lock, struct json_object *stack)
{
	size_t n = alen(stack);

	if (strcmp(r->lock, lock) || n != r->nframes)
		return false;
	for (size_t i = 0; i < n; i++)
		if (strcmp(frame_of(stack, i), r->frames[i]))
			return false;
	return true;
}

static struct row *row_of(struct tab *t, const char *lock, struct json_object *stack)
{
	for (size_t i = 0; i < t->cnt; i++)
		if (same_key(&t->v[i], lock, stack))
			return &t->v[i];
	struct row r = { .lock = udt__xstrdup(lock) };
	r.nframes = alen(stack);
	r.frames = udt__xcalloc(r.nframes + 1, sizeof(*r.frames));
	for (size_t i = 0; i < r.nframes; i++)
		r.frames[i] = udt__xstrdup(frame_of(stack, i));
	UDT__PUSH(t->v, t->cnt, t->cap, r);
	return &t->v[t->cnt - 1];
}

static uint64_t u64_of(struct json_object *o, const char *name)
{
	struct json_object *v;

	return o && json_object_is_type(o, json_type_object) && json_object_object_get_ex(o, name, &v)
		       ? (uint64_t)json_object_get_int64(v) : 0;
}

/* One printa() of the END record: its rows into their table. */
static void take_printa(struct json_object *a)
{
	struct json_object *name, *data = arr(a, "aggregation-data");
	size_t len;
	int ti;

	if (!data || !json_object_object_get_ex(a, "aggregation-name", &name) ||
	    (ti = table_of(str(name), &len)) < 0)
		return;
	char kind = str(name)[len + 1];
	for (size_t i = 0; i < alen(data); i++) {
		struct json_object *e = json_object_array_get_idx(data, i);
		struct json_object *keys = arr(e, "keys"), *vals = arr(e, "values"), *b;
		if (alen(keys) != 2)
			continue;
		struct row *r = row_of(&found[ti], str(json_object_array_get_idx(keys, 0)),
				       json_object_array_get_idx(keys, 1));
		if (kind == 's' && alen(vals) == 2) {
			r->sum = u64_of(json_object_array_get_idx(vals, 0), "sum");
			r->count = u64_of(json_object_array_get_idx(vals, 1), "count");
		} else if (kind == 'q' && (b = arr(e, "buckets")) && !r->buckets) {
			r->buckets = json_object_get(b);
		}
	}
}

/* A record (one line of dtrace's JSON): the target's pid (-v), the END's printa()s. */
static void take_line(char *line, bool verbose)
{
	struct json_object *rec, *name, *out;

	if (line[0] != '{' || !(rec = json_tokener_parse(line)))
		return;
	if (json_object_is_type(rec, json_type_object) &&
	    json_object_object_get_ex(rec, "name", &name) && (out = arr(rec, "output"))) {
		const char *probe = str(name);
		if (!strcmp(probe, "BEGIN") && verbose && alen(out))
			printf("%s: tracing enabled for pid %lld\n", pname,
			       (long long)u64_of(json_object_array_get_idx(out, 0), "value"));
		else if (!strcmp(probe, "END"))
			for (size_t i = 0; i < alen(out); i++)
				take_printa(json_object_array_get_idx(out, i));
	}
	json_object_put(rec);
}

/* -- The tables ------------------------------------------------------------------------------- */

/* Is frame f the C library's lock code (not the caller of it)? */
static bool lock_code(const char *f)
{
	return (!strncmp(f, "libc.so", 7) || !strncmp(f, "libpthread.so", 13)) &&
	       (strstr(f, "mutex") || strstr(f, "rwlock") || strstr(f, "lll_") || strstr(f, "futex"));
}

static int row_cmp(const void *x, const void *y)
{
	const struct row *a = x, *b = y;

	if (a->sum != b->sum)
		return a->sum < b->sum ? 1 : -1;
	return a->count < b->count ? 1 : a->count > b->count ? -1 : strcmp(a->lock, b->lock);
}

static void bar(void)
{
	printf("-------------------------------------------------------------------------------\n");
}

static void legend(void)
{
	printf("%5s %8s %-28s %s\n", "Count", "nsec", "Lock", "Caller");
}

static void histogram(const struct row *r, unsigned long depth)
{
	size_t nb = json_object_array_length(r->buckets), first = 0, last = nb, f = 0;
	uint64_t total = 0;

	for (size_t i = 0; i < nb; i++)
		total += u64_of(json_object_array_get_idx(r->buckets, i), "count");
	while (first < nb && !u64_of(json_object_array_get_idx(r->buckets, first), "count"))
		first++;
	while (last > first && !u64_of(json_object_array_get_idx(r->buckets, last - 1), "count"))
		last--;
	printf("\n%10s ---- Time Distribution --- %5s %s\n", "nsec", "count", "Stack");
	for (size_t b = first; b < last || (f < r->nframes && f < depth); b++, f++) {
		const char *frame = f < r->nframes && f < depth ? r->frames[f] : "";
		if (b < last) {
			struct json_object *e = json_object_array_get_idx(r->buckets, b);
			uint64_t c = u64_of(e, "count");
			printf("%10lld |%-24.*s| %5llu %s\n", (long long)u64_of(e, "value"),
			       total ? (int)(24.0 * (double)c / (double)total) : 0,
			       "@@@@@@@@@@@@@@@@@@@@@@@@", (unsigned long long)c, frame);
		} else {
			printf("%43s %s\n", "", frame);
		}
	}
}

/* The tables, max rows each; with distributions of stacks of depth (0: none). */
static void print_tables(unsigned long max, unsigned long depth)
{
	for (size_t i = 0; i < NTABLES; i++) {
		struct tab *t = &found[i];
		if (!t->cnt)
			continue;
		qsort(t->v, t->cnt, sizeof(*t->v), row_cmp);
		printf("\n%s\n\n", tables[i].title);
		if (!depth) {
			legend();
			bar();
		}
		for (size_t k = 0; k < t->cnt && k < max; k++) {
			const struct row *r = &t->v[k];
			const char *caller = "?";
			for (size_t f = 0; f < r->nframes && f < 4; f++) {
				caller = r->frames[f];
				if (!lock_code(caller))
					break;
			}
			if (depth) {
				bar();
				legend();
			}
			printf("%5llu %8llu %-28s %s\n", (unsigned long long)r->count,
			       (unsigned long long)(r->count ? r->sum / r->count : 0), r->lock, caller);
			if (depth && r->buckets)
				histogram(r, depth);
		}
	}
}

/* -- Running dtrace ---------------------------------------------------------------------------- */

/* The dtrace beside this command (the same build, or the same installation). */
static char *dtrace_path(void)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0)
		return udt__xstrdup("dtrace");
	self[n] = '\0';
	char *slash = strrchr(self, '/');
	*slash = '\0';
	return udt__xasprintf("%s/dtrace", self);
}

/* Pass dtrace's messages on as ours: "dtrace: " becomes "plockstat: ". */
static void pass_messages(char *buf, size_t *len, bool all)
{
	char *s = buf, *nl;

	while ((nl = memchr(s, '\n', *len - (size_t)(s - buf))) || (all && s < buf + *len)) {
		size_t n = nl ? (size_t)(nl - s) + 1 : *len - (size_t)(s - buf);
		if (n >= 8 && !strncmp(s, "dtrace: ", 8))
			fprintf(stderr, "%s: %.*s", pname, (int)(n - 8), s + 8);
		else
			fwrite(s, 1, n, stderr);
		s += n;
	}
	*len -= (size_t)(s - buf);
	memmove(buf, s, *len);
}

/* Run dtrace (argv), its output JSON on pipe out, its messages on err; its exit status. */
static int run(char **argv, const int out[2], const int err[2], bool verbose)
{
	int status = 0;
	pid_t child = fork();

	if (child < 0) {
		fprintf(stderr, "%s: fork: %s\n", pname, strerror(errno));
		return 1;
	}
	if (!child) {
		/* (-o names the pipe: the command's own output stays on our stdout) */
		if (dup2(err[1], 2) < 0 || fcntl(out[1], F_SETFD, 0) < 0)
			_exit(127);
		execv(argv[0], argv);
		fprintf(stderr, "%s: cannot run %s: %s\n", pname, argv[0], strerror(errno));
		_exit(127);
	}
	close(out[1]);
	close(err[1]);
	/* (^C ends dtrace, which then prints its END: we go on reading) */
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);

	struct udt_strbuf json = { 0 };
	char ebuf[8192];
	size_t elen = 0;
	/* until both pipes end, or dtrace has exited and they are empty: the traced command
	   and what it started may hold their write ends (dtrace -c's child inherits them) */
	int pidfd = (int)syscall(SYS_pidfd_open, child, 0);
	struct pollfd p[3] = { { .fd = out[0], .events = POLLIN }, { .fd = err[0], .events = POLLIN },
			       { .fd = pidfd, .events = POLLIN } };
	int open_fds = 2;
	bool gone = false;
	while (open_fds) {
		int ready = poll(p, 3, gone ? 0 : -1);
		if (ready < 0 && errno == EINTR)
			continue;
		if (ready <= 0)
			break; /* (dtrace gone, nothing more to read) */
		if (p[2].revents) {
			gone = true;
			p[2].fd = -1;
		}
		for (int i = 0; i < 2; i++) {
			char buf[65536];
			if (!(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			ssize_t n = read(p[i].fd, i ? ebuf + elen : buf, i ? sizeof(ebuf) - elen : sizeof(buf));
			if (n <= 0) {
				close(p[i].fd);
				p[i].fd = -1;
				open_fds--;
				continue;
			}
			if (i) {
				elen += (size_t)n;
				pass_messages(ebuf, &elen, elen == sizeof(ebuf));
				continue;
			}
			/* each whole line a record (only the new bytes searched: the END record's
			   line may be long) */
			const char *c = buf, *e = buf + n, *nl;
			while ((nl = memchr(c, '\n', (size_t)(e - c)))) {
				udt__sb_putn(&json, c, (size_t)(nl - c));
				if (json.buf)
					take_line(json.buf, verbose);
				udt__sb_reset(&json);
				c = nl + 1;
			}
			udt__sb_putn(&json, c, (size_t)(e - c));
			fflush(stdout);
		}
	}
	pass_messages(ebuf, &elen, true);
	udt__sb_reset(&json);
	if (pidfd >= 0)
		close(pidfd);
	for (int i = 0; i < 2; i++)
		if (p[i].fd >= 0)
			close(p[i].fd);
	while (waitpid(child, &status, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int main(int argc, char **argv)
{
	bool opt_C = false, opt_H = false, opt_p = false, opt_v = false, opt_V = false, opt_s = false;
	unsigned long max = ULONG_MAX, depth = 5;
	const char *secs = NULL;
	char **xopts = NULL, *end;
	size_t nx = 0, xcap = 0;
	int c;

	udt__progname = pname;
	argv[0] = (char *)pname; /* (getopt's messages) */
	while ((c = getopt(argc, argv, "+" OPTSTR)) != -1) {
		switch (c) {
		case 'n':
			errno = 0;
			max = strtoul(optarg, &end, 10);
			if (*optarg == '-' || *end || errno) {
				fprintf(stderr, "%s: invalid count '%s'\n", pname, optarg);
				usage();
			}
			break;
		case 'p':
			opt_p = true;
			break;
		case 's':
			errno = 0;
			opt_s = true;
			depth = strtoul(optarg, &end, 10);
			if (*optarg == '-' || *end || errno || !depth || depth > 100) {
				fprintf(stderr, "%s: invalid stack depth '%s'\n", pname, optarg);
				usage();
			}
			break;
		case 'e':
			errno = 0;
			if (!isdigit((unsigned char)*optarg) || strtoul(optarg, &end, 10) == 0 || *end ||
			    errno) {
				fprintf(stderr, "%s: invalid timeout '%s'\n", pname, optarg);
				usage();
			}
			secs = optarg;
			break;
		case 'v':
			opt_v = true;
			break;
		case 'x':
			UDT__PUSH(xopts, nx, xcap, optarg);
			break;
		case 'A':
			opt_C = opt_H = true;
			break;
		case 'C':
			opt_C = true;
			break;
		case 'H':
			opt_H = true;
			break;
		case 'V':
			opt_V = true;
			break;
		default:
			usage();
		}
	}
	if (optind == argc)
		usage();
	if (!opt_C && !opt_H)
		opt_C = true;

	struct udt_strbuf prog = { 0 }, cmd = { 0 };
	if (opt_v)
		udt__sb_puts(&prog, "BEGIN\n{\n\ttrace($target);\n}\n\n");
	program(&prog, opt_H, opt_C, depth, opt_s, secs);
	if (opt_V)
		fprintf(stderr, "%s: vvvv D program vvvv\n%s%s: ^^^^ D program ^^^^\n", pname,
			udt__sb_str(&prog), pname);

	if (opt_p) {
		long pid;
		if (argc - optind > 1) {
			fprintf(stderr, "%s: only one pid is allowed\n", pname);
			usage();
		}
		errno = 0;
		pid = strtol(argv[optind], &end, 10);
		if (*end || errno || pid <= 0 || pid > INT_MAX) {
			fprintf(stderr, "%s: invalid pid '%s'\n", pname, argv[optind]);
			usage();
		}
	} else {
		for (int i = optind; i < argc; i++) {
			if (strpbrk(argv[i], " \t")) {
				fprintf(stderr, "%s: argument '%s' holds a blank, which dtrace -c cannot "
					"pass on\n", pname, argv[i]);
				return 2;
			}
			udt__sb_printf(&cmd, "%s%s", i > optind ? " " : "", argv[i]);
		}
	}

	/* the program in a memory file dtrace reads as its -s */
	int pfd = memfd_create("plockstat.d", 0);
	if (pfd < 0 || write(pfd, udt__sb_str(&prog), strlen(udt__sb_str(&prog))) < 0) {
		fprintf(stderr, "%s: cannot hold the D program: %s\n", pname, strerror(errno));
		return 1;
	}
	char **dv = NULL;
	size_t dn = 0, dcap = 0;
	UDT__PUSH(dv, dn, dcap, dtrace_path());
	int out[2], err[2];
	if (pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC)) {
		fprintf(stderr, "%s: pipe: %s\n", pname, strerror(errno));
		return 1;
	}
	const char *fixed[] = { "-q", "-x", "oformat=jsonl", "-x", "aggsize=256k", "-x", "aggrate=1sec" };
	for (size_t i = 0; i < sizeof(fixed) / sizeof(*fixed); i++)
		UDT__PUSH(dv, dn, dcap, udt__xstrdup(fixed[i]));
	UDT__PUSH(dv, dn, dcap, udt__xstrdup("-o"));
	UDT__PUSH(dv, dn, dcap, udt__xasprintf("/proc/self/fd/%d", out[1]));
	if (opt_s) {
		UDT__PUSH(dv, dn, dcap, udt__xstrdup("-x"));
		UDT__PUSH(dv, dn, dcap, udt__xasprintf("ustackframes=%lu", depth));
	}
	for (size_t i = 0; i < nx; i++) {
		UDT__PUSH(dv, dn, dcap, udt__xstrdup("-x"));
		UDT__PUSH(dv, dn, dcap, udt__xstrdup(xopts[i]));
	}
	UDT__PUSH(dv, dn, dcap, udt__xstrdup("-s"));
	UDT__PUSH(dv, dn, dcap, udt__xasprintf("/proc/self/fd/%d", pfd));
	UDT__PUSH(dv, dn, dcap, udt__xstrdup(opt_p ? "-p" : "-c"));
	UDT__PUSH(dv, dn, dcap, udt__xstrdup(opt_p ? argv[optind] : udt__sb_str(&cmd)));
	UDT__PUSH(dv, dn, dcap, NULL);

	int st = run(dv, out, err, opt_v);
	print_tables(max, opt_s ? depth : 0);
	fflush(stdout);
	for (size_t i = 0; i < dn; i++)
		free(dv[i]);
	free(dv);
	free(xopts);
	udt__sb_reset(&prog);
	udt__sb_reset(&cmd);
	close(pfd);
	for (size_t i = 0; i < NTABLES; i++) {
		for (size_t k = 0; k < found[i].cnt; k++) {
			struct row *r = &found[i].v[k];
			for (size_t f = 0; f < r->nframes; f++)
				free(r->frames[f]);
			free(r->frames);
			free(r->lock);
			if (r->buckets)
				json_object_put(r->buckets);
		}
		free(found[i].v);
	}
	return st;
}
