/* SPDX-License-Identifier: MIT */
/*
 * dtrace -l and tracing: the process (-p PID, or -c CMD started here), the
 * program (-s, -n, -P, -m, -f), and the loop that keeps the session alive
 * and prints what the target records.
 *
 * -c starts the command with the runtime preloaded (LD_PRELOAD, unless
 * UDTRACE_RUNTIME names another one or it cannot be found) and a socket in
 * UDTRACE_SYNC_FD: the runtime's constructor reports on it and waits, so the
 * enablings are in before the program's main() runs. The command ends the
 * trace when it exits, and dtrace exits with its status (or exit()'s); if
 * dtrace stops first, it kills the command, as DTrace kills processes it
 * created.
 */
#include "cmd/dtrace/dtrace.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static volatile sig_atomic_t interrupted;
static struct sigaction pipe_was; /* SIGPIPE's disposition dtrace was started with */

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

static void notice(const struct cs_opts *co, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* DTrace's notices: on stderr, unless -q. */
static void notice(const struct cs_opts *co, const char *fmt, ...)
{
	va_list ap;

	if (co->out.quiet)
		return;
	fflush(stdout);
	va_start(ap, fmt);
	udt__vwarn(fmt, ap);
	va_end(ap);
}

/* -- The program -------------------------------------------------------------------------- */

const char *cmd_errtag(const struct cmd_opts *o, const char *msg)
{
	static char buf[64];
	bool on = o->copts.errtags;
	const char *tag = dl_errtag(msg);

	/* (-x errtags, before the options are applied: a parse error comes first) */
	for (size_t i = 0; i < o->xopt_cnt && !on; i++)
		on = !strcmp(o->xopts[i], "errtags");
	if (!on || !tag)
		return "";
	snprintf(buf, sizeof(buf), "[%s] ", tag);
	return buf;
}

static void parse_text(const struct cmd_opts *o, struct dl_program *p, const char *name,
		       const char *text)
{
	if (dl_parse(p, name, text, strlen(text), false)) {
		fprintf(stderr, "%s: invalid probe specifier %s: %s%s\n", udt__progname, text,
			cmd_errtag(o, dl_program_errmsg(p)), dl_program_errmsg(p));
		dl_program_free(p);
		exit(1);
	}
}

/*
 * DTrace's "dtrace: description 'D' matched N probes" for each -n, -P, -m
 * and -f (a -n program cropped before its predicate or actions, as DTrace
 * does), and "dtrace: script 'F' matched N probes" for each -s: the probes
 * enabled for its clauses (a probe once per clause), unless -q.
 */
static void report_matches(const struct cmd_opts *o, struct dl_program *p,
			   const struct cs_trace *t)
{
	size_t n;
	struct dl_clause *const *cls = dl_program_clauses(p, &n);

	for (size_t i = 0; i < o->prog_cnt; i++) {
		const struct cmd_prog *pr = &o->progs[i];
		size_t m = 0;

		for (size_t c = pr->first_clause; c < pr->first_clause + pr->clause_cnt && c < n; c++)
			m += cs_trace_clause_matches(t, cls[c]);
		/* as DTrace's: a -n, -P, -m, -f or -i program cropped before its predicate or
		   actions */
		int len = pr->kind != 's' ? (int)strcspn(pr->arg, "{/;") : (int)strlen(pr->arg);

		notice(&o->copts, "%s '%.*s' matched %zu probe%s",
		       pr->kind == 's' ? "script" : "description", len, pr->arg, m, m == 1 ? "" : "s");
	}
}

/*
 * The -x options into o->copts: DTrace's "failed to set -x NAME: why" and exit
 * 1 for one that cannot be set (-b's as "-b SIZE").
 */
static void apply_xopts(struct cmd_opts *o, struct dl_program *p)
{
	for (size_t i = 0; i < o->xopt_cnt; i++) {
		char *name = udt__xstrdup(o->xopts[i]), *eq = strchr(name, '=');
		if (eq)
			*eq++ = '\0';
		const char *why = cs_opt_set(&o->copts, name, eq);
		if (why) {
			if (!strcmp(name, "b"))
				fprintf(stderr, "%s: failed to set -b %s: %s\n", udt__progname,
					eq, why);
			else
				fprintf(stderr, "%s: failed to set -x %s: %s\n", udt__progname,
					name, why);
			free(name);
			dl_program_free(p);
			exit(1);
		}
		free(name);
	}
}

int cmd_check_options(struct cmd_opts *o)
{
	apply_xopts(o, NULL);
	return 0;
}

static struct dl_program *load_program(struct cmd_opts *o)
{
	struct dl_program *p = dl_program_new(o->model);
	const char **margv = udt__xcalloc(o->object_cnt + 2, sizeof(*margv));
	bool defaultargs = false;

	/* $0 is the script, $1... the operands; -x defaultargs counts before parsing */
	margv[0] = o->source_cnt ? o->sources[0] : udt__progname;
	for (size_t i = 0; i < o->object_cnt; i++)
		margv[i + 1] = o->objects[i];
	for (size_t i = 0; i < o->xopt_cnt; i++)
		defaultargs |= !strncmp(o->xopts[i], "defaultargs", 11) &&
			       (!o->xopts[i][11] || o->xopts[i][11] == '=');
	dl_program_set_macros(p, margv, o->object_cnt + 1, defaultargs);
	free(margv);
	/* -x first, as DTrace sets them before it compiles: their errors come before the
	   script's */
	apply_xopts(o, p);
	cmd_load_libraries(o, p);

	for (size_t i = 0; i < o->prog_cnt; i++) {
		struct cmd_prog *pr = &o->progs[i];
		char *text = NULL;

		dl_program_clauses(p, &pr->first_clause);
		switch (pr->kind) {
		case 's': {
			struct cmd_opts one = *o;
			const char *src = pr->arg;
			one.sources = &src;
			one.source_cnt = 1;
			cmd_load_sources(&one, p);
			break;
		}
		case 'n':
		case 'i': /* a description that is a number is a probe ID (pb_desc_match()) */
			parse_text(o, p, pr->kind == 'n' ? "-n" : "-i", pr->arg);
			break;
		case 'P':
		case 'm':
		case 'f': {
			/* the fields it names, then its predicate and actions if any
			   ("-P dtrace'{ trace(1); }'" is "dtrace:::{ trace(1); }") */
			int k = (int)strcspn(pr->arg, "/{"), f = k;
			while (f > 0 && strchr(" \t\n", pr->arg[f - 1]))
				f--;
			text = udt__xasprintf("%.*s%s%s", f, pr->arg,
					      pr->kind == 'P' ? ":::" : pr->kind == 'm' ? "::" : ":",
					      pr->arg + k);
			break;
		}
		}
		if (text) {
			parse_text(o, p, pr->kind == 'P' ? "-P" : pr->kind == 'm' ? "-m" : "-f", text);
			free(text);
		}
		dl_program_clauses(p, &pr->clause_cnt);
		pr->clause_cnt -= pr->first_clause;
		pr->empty = !dl_program_unit_items(p);
	}

	/* #pragma D option, then -x again (the command line wins) */
	size_t n;
	const struct dl_option *po = dl_program_options(p, &n);
	for (size_t i = 0; i < n; i++) {
		const char *why = cs_opt_set(&o->copts, po[i].name, po[i].value);
		if (why) {
			/* DTrace's D_PRAGMA_OPTSET */
			fprintf(stderr, "%s: %s%s:%d:%d: error: failed to set option '%s' to '%s': %s\n",
				udt__progname, cmd_errtag(o, "failed to set option"), po[i].loc.file,
				po[i].loc.line, po[i].loc.col, po[i].name, po[i].value ? po[i].value : "",
				why);
			dl_program_free(p);
			exit(1);
		}
	}
	apply_xopts(o, p);
	dl_program_set_defaultargs(p, o->copts.defaultargs);
	/* as DTrace's D_EMPTY */
	for (size_t i = 0; i < o->prog_cnt && !o->copts.empty; i++) {
		if (!o->progs[i].empty)
			continue;
		const char *msg = "empty D program translation unit";
		if (o->progs[i].kind == 's')
			fprintf(stderr, "%s: failed to compile script %s: %s%s\n", udt__progname,
				o->progs[i].arg, cmd_errtag(o, msg), msg);
		else
			fprintf(stderr, "%s: invalid probe specifier %s: %s%s\n", udt__progname,
				o->progs[i].arg, cmd_errtag(o, msg), msg);
		dl_program_free(p);
		exit(1);
	}
	return p;
}

/* -- The process ---------------------------------------------------------------------------- */

struct target {
	struct pr_proc proc;
	bool have;
	pid_t child;               /* -c */
	int sync;                  /* -c: our end of the handshake, until released */
	int follow;                /* -c: our end of the descendants' announcements (-1: none) */
	bool child_reaped;
	int child_status;
};

static char **split_command(const char *cmd)
{
	char **argv = NULL;
	size_t n = 0, cap = 0;

	for (const char *s = cmd; *s;) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			break;
		const char *st = s;
		while (*s && *s != ' ' && *s != '\t')
			s++;
		UDT__PUSH(argv, n, cap, udt__xstrndup(st, (size_t)(s - st)));
	}
	UDT__PUSH(argv, n, cap, NULL);
	return argv;
}

/* Has the child exec'd (its executable is no longer ours)? */
static bool exec_done(pid_t child)
{
	char path[64];
	struct stat self, it;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)child);
	return !stat("/proc/self/exe", &self) && !stat(path, &it) &&
	       (self.st_dev != it.st_dev || self.st_ino != it.st_ino);
}

/* Start -c's command, stopped in the runtime's constructor until target_release(). */
static int target_spawn(struct cmd_opts *o, struct target *tg)
{
	int sv[2];
	char **argv = split_command(o->command);
	char *rt = pr_runtime_path();

	if (!argv[0]) {
		fprintf(stderr, "%s: -c needs a command\n", udt__progname);
		exit(2);
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		fprintf(stderr, "%s: failed to create a socket pair: %s\n", udt__progname,
			strerror(errno));
		return -1;
	}
	/* where the command's descendants' new images say they are there (cs_trace_follow());
	   without it, they are found as they always were, a moment later */
	int fv[2] = { -1, -1 };
	pid_t self = getpid();
	if (pr_follow_pair(fv))
		fv[0] = fv[1] = -1;
	fflush(NULL);
	tg->child = fork();
	if (tg->child < 0) {
		fprintf(stderr, "%s: failed to execute %s: %s\n", udt__progname, argv[0],
			strerror(errno));
		return -1;
	}
	if (tg->child == 0) {
		char num[16];
		int fd = dup(sv[1]); /* without close-on-exec */

		snprintf(num, sizeof(num), "%d", fd);
		setenv("UDTRACE_SYNC_FD", num, 1);
		int ffd = fv[1] >= 0 ? dup(fv[1]) : -1; /* (inherited by every descendant) */
		if (ffd >= 0) {
			char fnum[32];
			snprintf(fnum, sizeof(fnum), "%d:%d", ffd, (int)self);
			setenv("UDTRACE_FOLLOW_FD", fnum, 1);
		}
		if (rt) {
			const char *old = getenv("LD_PRELOAD");
			char *pre = old && *old ? udt__xasprintf("%s:%s", rt, old) : udt__xstrdup(rt);
			setenv("LD_PRELOAD", pre, 1);
		}
		/* (the command's signals as dtrace's were given: SIGPIPE ignored would stay so
		   across the exec) */
		signal(SIGINT, SIG_DFL);
		sigaction(SIGPIPE, &pipe_was, NULL);
		/* -x setenv=NAME=VALUE and -x unsetenv=NAME, in order */
		for (size_t i = 0; i < o->cmd_env_cnt; i++) {
			char *nv = udt__xstrdup(o->cmd_env[i]), *eq = strchr(nv, '=');
			if (eq) {
				*eq = '\0';
				setenv(nv, eq + 1, 1);
			} else {
				unsetenv(nv);
			}
			free(nv);
		}
		execvp(argv[0], argv);
		fprintf(stderr, "%s: failed to execute %s: %s\n", udt__progname, argv[0],
			strerror(errno));
		_exit(127);
	}
	close(sv[1]);
	tg->sync = sv[0];
	if (fv[1] >= 0)
		close(fv[1]);
	tg->follow = fv[0];
	for (size_t i = 0; argv[i]; i++)
		free(argv[i]);
	free(argv);

	/*
	 * Wait for the runtime's "ready", or for the command to die without one
	 * (an exec failure: it said why), or to show why it never will (static,
	 * set-id: once it has exec'd), or to close its end without a word.
	 */
	bool eof = false, execd = false;
	char *why = NULL;
	for (int ms = 0; ms < 30000 && !why && !(eof && ms > 1000); ms += 10) {
		struct pollfd pfd = { tg->sync, POLLIN, 0 };
		int st;
		char b;

		if (eof)
			poll(NULL, 0, 10);
		else if (poll(&pfd, 1, 10) > 0) {
			if (read(tg->sync, &b, 1) == 1 && b == 'R') {
				free(rt);
				return 0;
			}
			eof = true;
		}
		if (waitpid(tg->child, &st, WNOHANG) == tg->child) {
			tg->child_reaped = true;
			tg->child_status = st;
			if (WIFEXITED(st) && WEXITSTATUS(st) == 127) {
				free(rt);
				return -1; /* it said why */
			}
			break;
		}
		if (!execd && (execd = exec_done(tg->child)))
			why = pr_runtime_unloadable(tg->child);
	}
	if (why)
		fprintf(stderr, "%s: failed to grab pid %d: %s\n", udt__progname, (int)tg->child,
			why);
	else if (rt)
		fprintf(stderr, "%s: failed to grab pid %d: the udtrace runtime (%s) did not start "
			"in it\n", udt__progname, (int)tg->child, rt);
	else
		fprintf(stderr, "%s: failed to grab pid %d: it has no udtrace runtime, and dtrace "
			"found none to preload (set UDTRACE_RUNTIME to the path of libudtrace.so.1)\n",
			udt__progname, (int)tg->child);
	free(why);
	free(rt);
	return -1;
}

/* Let -c's command run; with a session, have it make its buffers and map them first. */
static void target_release(struct target *tg, struct cs_trace *t)
{
	if (tg->sync < 0)
		return;
	/* (the handshake: runtime/session.c) */
	if (t && pr_sync_step(tg->sync, 'S', 'M', 10000))
		(void)cs_trace_map(t);
	(void)pr_sync_step(tg->sync, 'G', 0, 0); /* if the command died, the main loop will notice */
	close(tg->sync);
	tg->sync = -1;
}

static void target_kill(struct target *tg)
{
	if (tg->follow >= 0) {
		close(tg->follow);
		tg->follow = -1;
	}
	if (tg->child > 0 && !tg->child_reaped) {
		kill(tg->child, SIGKILL);
		while (waitpid(tg->child, &tg->child_status, 0) < 0 && errno == EINTR)
			;
		tg->child_reaped = true;
	}
}

/*
 * Does program p need a runtime in the -p process proc? It does for a
 * profile-n probe (the runtime samples) and the pid provider's (it patches),
 * and for any other description of a process's probe when the process has
 * probes. dtrace's BEGIN, END and
 * ERROR and the tick-n probes run in dtrace.
 */
static bool needs_runtime(struct dl_program *p, const struct pr_proc *proc)
{
	size_t n;
	struct dl_clause *const *cls = dl_program_clauses(p, &n);

	for (size_t i = 0; i < n; i++) {
		for (size_t d = 0; d < cls[i]->pdesc_cnt; d++) {
			enum pb_desc_kind k = pb_desc_kind(cls[i]->pdescs[d]);
			if (k == PB_DESC_PROFILE || k == PB_DESC_PID ||
			    ((k == PB_DESC_PROC || k == PB_DESC_ID) && pr_proc_has_probes(proc)))
				return true;
		}
	}
	return false;
}

/* Does program p describe probes of processes (not only dtrace's and the profile provider's)? */
static bool names_processes(struct dl_program *p)
{
	size_t n;
	struct dl_clause *const *cls = dl_program_clauses(p, &n);

	for (size_t i = 0; i < n; i++)
		for (size_t d = 0; d < cls[i]->pdesc_cnt; d++)
			if (pb_desc_kind(cls[i]->pdescs[d]) == PB_DESC_PROC ||
			    pb_desc_kind(cls[i]->pdescs[d]) == PB_DESC_PID)
				return true;
	return false;
}

/*
 * Open the target: -c's command (started with the runtime), or -p's process.
 * When program p (NULL: none) needs a runtime in a -p process that has none,
 * dtrace's is loaded into it first (docs/injection.md), before any probe is
 * matched or enabled.
 */
static int target_open(struct cmd_opts *o, struct target *tg, struct dl_program *p)
{
	pid_t pid = o->pid;
	int err;

	tg->sync = tg->follow = -1;
	if (o->command) {
		if (target_spawn(o, tg)) {
			target_kill(tg);
			return -1;
		}
		pid = tg->child;
	}
	if (!pid)
		return 0;
	err = pr_proc_open(&tg->proc, pid);
	if (err) {
		fprintf(stderr, "%s: %s\n", udt__progname, tg->proc.errmsg[0] ? tg->proc.errmsg :
			strerror(-err));
		target_kill(tg);
		return -1;
	}
	tg->have = true;
	if (p && o->pid && needs_runtime(p, &tg->proc)) {
		char *rt = pr_runtime_path(), *why = NULL;
		/* (one dtrace at a time injects: another may have loaded it while this one
		   waited for the lock, which a fresh look at the process sees) */
		int lock = pr_attach_lock(pid, &why);
		err = lock < 0 ? lock : pr_proc_refresh(&tg->proc);
		if (!err)
			err = pr_runtime_load(&tg->proc, rt, &why);
		else if (lock >= 0)
			why = udt__xstrdup(tg->proc.errmsg[0] ? tg->proc.errmsg : strerror(-err));
		pr_attach_unlock(lock);
		free(rt);
		if (lock < 0) {
			fprintf(stderr, "%s: %s\n", udt__progname, why);
			free(why);
			pr_proc_close(&tg->proc);
			tg->have = false;
			return -1;
		}
		if (err < 0) {
			fprintf(stderr, "%s: failed to grab pid %d: %s\n", udt__progname, (int)pid, why);
			free(why);
			pr_proc_close(&tg->proc);
			tg->have = false;
			return -1;
		}
	}
	return 0;
}

/* Has the target gone? */
static bool target_gone(struct target *tg)
{
	if (!tg->have)
		return false;
	if (tg->child > 0) {
		int st;
		if (!tg->child_reaped) {
			pid_t r = waitpid(tg->child, &st, WNOHANG);
			/* (reaped already: an injected call's waitpid() saw it exit, its status
			   then unknown here) */
			if (r < 0 && errno == ECHILD)
				st = 0;
			else if (r != tg->child)
				return false;
			tg->child_reaped = true;
			tg->child_status = st;
		}
		return true;
	}
	return kill(tg->proc.pid, 0) && errno == ESRCH;
}

/* DTrace's notice that it has. */
static void target_notice(const struct cmd_opts *o, const struct target *tg)
{
	int st = tg->child_status;

	if (tg->child <= 0)
		notice(&o->copts, "pid %d has exited", (int)tg->proc.pid);
	else if (WIFSIGNALED(st))
		notice(&o->copts, "pid %d terminated by %s", (int)tg->child,
		       sigabbrev_np(WTERMSIG(st)) ? sigabbrev_np(WTERMSIG(st)) : "a signal");
	else if (WEXITSTATUS(st))
		notice(&o->copts, "pid %d exited with status %d", (int)tg->child, WEXITSTATUS(st));
	else
		notice(&o->copts, "pid %d has exited", (int)tg->child);
}

static FILE *open_output(const struct cmd_opts *o)
{
	if (!o->output)
		return stdout;
	FILE *f = fopen(o->output, "a");
	if (!f) {
		fprintf(stderr, "%s: failed to open output file '%s': %s\n", udt__progname,
			o->output, strerror(errno));
		exit(1);
	}
	return f;
}

/* -- -l ----------------------------------------------------------------------------------------- */

int cmd_list(struct cmd_opts *o)
{
	struct dl_program *p = load_program(o);
	struct target tg = { .sync = -1, .follow = -1 };
	struct pb_probes ps;
	const char **descs = NULL;
	size_t desc_cnt = 0, cap = 0, ncl;
	struct dl_clause *const *cls = dl_program_clauses(p, &ncl);
	int ret = 0;

	if (target_open(o, &tg, NULL)) {
		dl_program_free(p);
		return 1;
	}
	pb_probes_load(&ps, tg.have ? &tg.proc : NULL);
	for (size_t i = 0; i < ncl; i++)
		for (size_t d = 0; d < cls[i]->pdesc_cnt; d++)
			UDT__PUSH(descs, desc_cnt, cap, cls[i]->pdescs[d]);
	/* without -p or -c, a description lists the probes of every process it may match, as
	   it would trace them (docs/processes.md) */
	struct pb_every *every = tg.have ? NULL : pb_every_probes(&ps, descs, desc_cnt);
	/* the profile provider's probes: those enabled in the process, those named here, and
	   DTrace's default ones that a glob (or a listing of everything) matches */
	if (tg.have)
		pb_probes_add_live(&ps, &tg.proc);
	if (!ncl)
		(void)pb_probes_add_profile(&ps, "profile:::", true, NULL);
	for (size_t d = 0; d < desc_cnt; d++) {
		char *err = NULL;
		if (pb_probes_add_profile(&ps, descs[d], true, &err) < 0 ||
		    pb_probes_add_pid(&ps, tg.have ? &tg.proc : NULL, descs[d], &err) < 0) {
			fprintf(stderr, "%s: %s%s\n", udt__progname, cmd_errtag(o, err), err);
			free(err);
			ret = 1;
		}
	}
	FILE *out = open_output(o);
	pb_list(&ps, descs, desc_cnt, o->verbose, out);
	for (size_t d = 0; d < desc_cnt && !o->copts.zdefs; d++) {
		bool any = false;
		for (size_t i = 0; i < ps.cnt && !any; i++)
			any = pb_desc_match(descs[d], &ps.v[i]);
		uint32_t id;
		if (!any && pb_desc_id(descs[d], &id)) {
			fflush(out);
			fprintf(stderr, "%s: invalid probe specifier %s: invalid probe identifier %s: "
				"Unknown probe identifier\n", udt__progname, descs[d], descs[d]);
			ret = 1;
		} else if (!any) {
			char *why = pb_desc_nomatch(descs[d]);
			fflush(out);
			fprintf(stderr, "%s: invalid probe specifier %s: %s\n", udt__progname,
				descs[d], why);
			free(why);
			ret = 1;
		}
	}
	if (fflush(out) || (out != stdout && fclose(out)))
		ret = 1;
	free(descs);
	pb_probes_free(&ps);
	pb_every_free(every);
	target_kill(&tg);
	if (tg.have)
		pr_proc_close(&tg.proc);
	dl_program_free(p);
	return ret;
}

/* -- Tracing ---------------------------------------------------------------------------------- */

int cmd_trace(struct cmd_opts *o)
{
	/* first: a ^C or SIGTERM while dtrace compiles, grabs its process or loads its
	   runtime into many ends the session once they are, as a later one would (and one
	   started in the background by a shell, where SIGINT comes ignored, was lost) */
	struct sigaction sa = { .sa_handler = on_signal };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	struct sigaction ign = { .sa_handler = SIG_IGN };
	sigaction(SIGPIPE, &ign, &pipe_was);

	struct dl_program *p = load_program(o);
	struct target tg = { .sync = -1, .follow = -1 };
	struct cs_trace *t = NULL;
	char *err = NULL;
	int ret = 1;
	FILE *out;

	if (target_open(o, &tg, p)) {
		dl_program_free(p);
		return 1;
	}
	out = open_output(o);
	/* a terminal's output too is written at the end of each round, as a file's or a
	   pipe's: BEGIN's lines appear once the probes are enabled, as DTrace prints them
	   (its consumer reads BEGIN's buffer after dtrace_go()), so "Tracing... Hit Ctrl-C"
	   means what it says */
	setvbuf(out, NULL, _IOFBF, BUFSIZ);
	o->copts.compile_only = o->exit_after_compile;
	/* no process given: the descriptions of processes' probes reach every process that
	   has them, running or started later (docs/processes.md) */
	o->copts.every_process = !tg.have && names_processes(p);
	if (cs_trace_open(&t, p, tg.have ? &tg.proc : NULL, &o->copts, out, &err) ||
	    (!o->copts.argref && dl_program_check_macros(p, &err))) {
		fprintf(stderr, "%s: %s%s\n", udt__progname, cmd_errtag(o, err), err);
		goto out;
	}
	/* -e compiles and enables nothing: DTrace then counts nothing either */
	if (o->exit_after_compile) {
		ret = 0;
		goto out;
	}
	report_matches(o, p, t);
	if (o->copts.destructive)
		notice(&o->copts, "allowing destructive actions");

	if (tg.follow >= 0) {
		cs_trace_follow(t, tg.follow);
		tg.follow = -1;
	}
	if (cs_trace_start(t, &err)) {
		fprintf(stderr, "%s: %s\n", udt__progname, err);
		goto out;
	}
	target_release(&tg, t);
	if (cs_trace_arm(t, &err)) {
		fprintf(stderr, "%s: %s\n", udt__progname, err);
		(void)cs_trace_stop(t);
		goto out;
	}

	enum cs_work w = CS_WORK_MORE;
	bool have_target = tg.have;
	while (!interrupted) {
		if (have_target && target_gone(&tg)) {
			cs_trace_target_gone(t);
			target_notice(o, &tg);
			break;
		}
		w = cs_trace_work(t);
		if (w != CS_WORK_MORE)
			break;
		/* (with BEGIN and END only, this waits for ^C, as DTrace does) */
		cs_trace_wait(t);
	}
	if (cs_trace_stop(t) || w == CS_WORK_ERROR) {
		ret = 1;
		goto out;
	}
	/* exit()'s status; else 0 as DTrace's, whatever -c's command exited with, unless
	   -x cmdstatus asks for the command's */
	ret = 0;
	if (cs_trace_exited(t))
		ret = cs_trace_exit_status(t);
	else if (!o->copts.cmdstatus)
		ret = 0;
	else if (tg.child > 0 && tg.child_reaped && WIFEXITED(tg.child_status))
		ret = WEXITSTATUS(tg.child_status);
	else if (tg.child > 0 && tg.child_reaped && WIFSIGNALED(tg.child_status))
		ret = 128 + WTERMSIG(tg.child_status); /* as a shell reports it */
out:
	free(err);
	cs_trace_close(t);
	if (out && out != stdout && fclose(out))
		ret = 1;
	else if (out == stdout && fflush(stdout))
		ret = 1;
	/* a command not released yet (-e, an error) dies without running main() */
	target_kill(&tg);
	if (tg.sync >= 0)
		close(tg.sync);
	if (tg.have)
		pr_proc_close(&tg.proc);
	dl_program_free(p);
	return ret;
}
