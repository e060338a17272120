/* SPDX-License-Identifier: MIT */
/*
 * Output files that appear complete or not at all.
 *
 * make decides what to rebuild from file times, so a header or object left
 * half-written by a failed or killed dtrace would poison every later build.
 * The data is written to an unnamed O_TMPFILE inode in the destination
 * directory and linked under a unique temporary name only once complete, then
 * renamed over the destination: a reader sees the old file or the new one.
 * Where the file system has no O_TMPFILE, a mkstemp() temporary beside the
 * destination is used instead (removed on every error path). Either way the
 * temporary lives in the destination's directory, never in a fixed-name file,
 * so parallel makes writing different outputs cannot collide.
 */
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return udt__xstrdup(".");
	if (slash == path)
		return udt__xstrdup("/");
	return udt__xstrndup(path, (size_t)(slash - path));
}

/* A unique hidden name beside path: dir/.base.XXXXXX */
static char *temp_template(const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	char *dir = dir_of(path);
	char *t = udt__xasprintf("%s/.%s.XXXXXX", dir, base);

	free(dir);
	return t;
}

int udt__outfile_open(struct udt_outfile *of, const char *path)
{
	char *dir = dir_of(path);
	int fd, err;

	of->fd = -1;
	of->path = NULL;
	of->tmpname = NULL;

	fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666 & ~0);
	free(dir);
	if (fd >= 0) {
		/* O_TMPFILE ignores the umask for mode 0666 on some kernels. */
		mode_t um = umask(0);
		umask(um);
		(void)fchmod(fd, 0666 & ~um);
	} else {
		char *tmp = temp_template(path);

		fd = mkostemp(tmp, O_CLOEXEC);
		if (fd < 0) {
			err = -errno;
			free(tmp);
			return err;
		}
		mode_t um = umask(0);
		umask(um);
		(void)fchmod(fd, 0666 & ~um);
		of->tmpname = tmp;
	}
	of->fd = fd;
	of->path = udt__xstrdup(path);
	return 0;
}

int udt__outfile_write(struct udt_outfile *of, const void *buf, size_t sz)
{
	const char *p = buf;

	while (sz) {
		ssize_t n = write(of->fd, p, sz);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		sz -= (size_t)n;
	}
	return 0;
}

int udt__outfile_commit(struct udt_outfile *of)
{
	int err = 0;

	if (!of->tmpname) {
		char proc[64];
		char *tmp = NULL;

		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", of->fd);
		for (int tries = 0; tries < 100; tries++) {
			tmp = temp_template(of->path);
			int fd = mkstemp(tmp);
			if (fd < 0) {
				err = -errno;
				free(tmp);
				return err;
			}
			/* mkstemp reserved a unique name; replace it with our inode. */
			close(fd);
			(void)unlink(tmp);
			if (linkat(AT_FDCWD, proc, AT_FDCWD, tmp, AT_SYMLINK_FOLLOW) == 0)
				break;
			err = -errno;
			free(tmp);
			tmp = NULL;
			if (err != -EEXIST)
				return err;
		}
		if (!tmp)
			return err;
		of->tmpname = tmp;
	}
	if (close(of->fd) < 0) {
		of->fd = -1;
		return -errno;
	}
	of->fd = -1;
	if (rename(of->tmpname, of->path) < 0)
		return -errno;
	free(of->tmpname);
	of->tmpname = NULL;
	free(of->path);
	of->path = NULL;
	return 0;
}

void udt__outfile_abort(struct udt_outfile *of)
{
	if (of->fd >= 0)
		close(of->fd);
	of->fd = -1;
	if (of->tmpname)
		(void)unlink(of->tmpname);
	free(of->tmpname);
	of->tmpname = NULL;
	free(of->path);
	of->path = NULL;
}

int udt__read_file(const char *path, char **ret_buf, size_t *ret_sz)
{
	struct udt_strbuf sb = { 0 };
	char chunk[65536];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int err = 0;

	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			break;
		}
		if (n == 0)
			break;
		udt__sb_putn(&sb, chunk, (size_t)n);
	}
	close(fd);
	if (err) {
		udt__sb_reset(&sb);
		return err;
	}
	*ret_sz = sb.len;
	*ret_buf = udt__sb_take(&sb);
	return 0;
}
