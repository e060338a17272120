/* SPDX-License-Identifier: MIT */
/*
 * Running the C preprocessor for -C.
 *
 * cpp is -x cpppath, or $CPP when set (autoconf builds export "gcc -E" there) or "cpp", run
 * with "-x c" so a .d file is read as C whatever the driver, with the -I, -D
 * and -U options in the order given, and with line markers kept so parse
 * errors name the original file and line. Its output is read through a pipe:
 * no temporary file is made. A script whose first line is "#!" (an
 * executable D script: "#!/usr/sbin/dtrace -Cs") has that line blanked
 * before cpp sees it, as DTrace's dt_preproc() does: cpp then reads a copy
 * in memory (a memfd it inherits, led by a line marker naming the script,
 * and with the script's directory searched for its quoted includes).
 */
#include "cmd/dtrace/dtrace.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* Split $CPP into words (blank-separated; no quoting, as make passes it). */
static void split_words(const char *s, char ***argv, size_t *cnt, size_t *cap)
{
	while (*s) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			break;
		const char *st = s;
		while (*s && *s != ' ' && *s != '\t')
			s++;
		UDT__PUSH(*argv, *cnt, *cap, udt__xstrndup(st, (size_t)(s - st)));
	}
}

/*
 * When the script at path begins with "#!": a memfd (not close-on-exec) holding it with
 * that line blank, behind a line marker; else -1.
 */
static int shebang_copy(const char *path)
{
	char *text = NULL, head[2];
	size_t len;
	int fd = -1, in = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;

	/* (a regular file only: a pipe, /dev/stdin, is cpp's to read, and read once) */
	bool shebang = in >= 0 && !fstat(in, &st) && S_ISREG(st.st_mode) &&
		       pread(in, head, 2, 0) == 2 && head[0] == '#' && head[1] == '!';
	if (in >= 0)
		close(in);
	if (!shebang || udt__read_file(path, &text, &len))
		goto out;
	const char *nl = memchr(text, '\n', len);
	struct udt_strbuf sb = { 0 };
	udt__sb_printf(&sb, "# 1 \"%s\"\n\n", path);
	if (nl)
		udt__sb_putn(&sb, nl + 1, len - (size_t)(nl + 1 - text));
	fd = memfd_create("udtrace-cpp", 0);
	if (fd >= 0 && (write(fd, sb.buf, sb.len) != (ssize_t)sb.len || lseek(fd, 0, SEEK_SET))) {
		close(fd);
		fd = -1;
	}
	udt__sb_reset(&sb);
out:
	free(text);
	return fd;
}

int cmd_cpp(const struct cmd_opts *o, const char *path, char **ret_text, size_t *ret_sz)
{
	char **argv = NULL;
	size_t cnt = 0, cap = 0;
	const char *cpp = getenv("CPP");
	int pfd[2] = { -1, -1 };
	posix_spawn_file_actions_t fa;
	struct udt_strbuf sb = { 0 };
	pid_t pid;
	int err, status;

	split_words(o->cpppath ? o->cpppath : cpp && *cpp ? cpp : "cpp", &argv, &cnt, &cap);
	UDT__PUSH(argv, cnt, cap, udt__xstrdup("-x"));
	UDT__PUSH(argv, cnt, cap, udt__xstrdup("c"));
	/* -H: cpp lists the files it includes, on stderr (DTrace's -H passes its cpp -H) */
	if (o->cpphdrs)
		UDT__PUSH(argv, cnt, cap, udt__xstrdup("-H"));
	/* -X s is K&R C, where __STDC__ is not defined; a, c and t are ISO C dialects,
	   where it is (DTrace's Sun cpp gives 0 in a and t, 1 in c: gcc's cpp always 1) */
	if (o->stdc == 's')
		UDT__PUSH(argv, cnt, cap, udt__xstrdup("-traditional-cpp"));
	/* What D programs may test: DTrace's own macros, and ours. */
	UDT__PUSH(argv, cnt, cap, udt__xstrdup("-D__SUNW_D=1"));
	UDT__PUSH(argv, cnt, cap, udt__xstrdup("-D__udtrace__=1"));
	UDT__PUSH(argv, cnt, cap,
		  udt__xstrdup(o->model == DL_LP64 ? "-D__SUNW_D_64=1" : "-D__SUNW_D_32=1"));
	for (size_t i = 0; i < o->cpp_arg_cnt; i++)
		UDT__PUSH(argv, cnt, cap, udt__xstrdup(o->cpp_args[i]));
	int copy = shebang_copy(path);
	if (copy >= 0) {
		const char *slash = strrchr(path, '/');
		UDT__PUSH(argv, cnt, cap, udt__xstrdup("-iquote"));
		UDT__PUSH(argv, cnt, cap, slash ? udt__xstrndup(path, (size_t)(slash - path) + 1)
					       : udt__xstrdup("."));
		UDT__PUSH(argv, cnt, cap, udt__xasprintf("/dev/fd/%d", copy));
	} else {
		UDT__PUSH(argv, cnt, cap, udt__xstrdup(path));
	}
	UDT__PUSH(argv, cnt, cap, NULL);

	if (pipe2(pfd, O_CLOEXEC) < 0) {
		err = -errno;
		goto out;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, pfd[1], STDOUT_FILENO);
	err = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(pfd[1]);
	pfd[1] = -1;
	if (err) {
		fprintf(stderr, "%s: failed to run the preprocessor %s: %s\n", udt__progname,
			argv[0], strerror(err));
		err = -err;
		goto out;
	}
	for (;;) {
		char chunk[65536];
		ssize_t n = read(pfd[0], chunk, sizeof(chunk));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		udt__sb_putn(&sb, chunk, (size_t)n);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "%s: failed to preprocess %s: %s %s %d\n", udt__progname, path,
			argv[0], WIFEXITED(status) ? "exited with status" : "killed by signal",
			WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
		err = -EINVAL;
		goto out;
	}
	*ret_sz = sb.len;
	*ret_text = udt__sb_take(&sb);
	err = 0;
out:
	if (copy >= 0)
		close(copy);
	if (pfd[0] >= 0)
		close(pfd[0]);
	if (pfd[1] >= 0)
		close(pfd[1]);
	for (size_t i = 0; i < cnt; i++)
		free(argv[i]);
	free(argv);
	udt__sb_reset(&sb);
	return err;
}
