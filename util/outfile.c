/* SPDX-License-Identifier: MIT */
/*
 * Output files that appear complete or not at all, written into whatever the
 * output path names.
 *
 * make decides what to rebuild from file times, so a header or object left
 * half-written by a failed or killed dtrace would poison every later build.
 * For a regular file (or a name that does not exist yet) the data is written
 * to an unnamed O_TMPFILE inode in the destination directory and linked under
 * a unique temporary name only once complete, then renamed over the
 * destination: a reader sees the old file or the new one. Where the file
 * system has no O_TMPFILE, a mkstemp() temporary beside the destination is
 * used instead (removed on every error path). Either way the temporary lives
 * in the destination's directory, never in a fixed-name file, so parallel
 * makes writing different outputs cannot collide.
 *
 * Renaming over anything else destroys it: run as root, `-o /dev/null` would
 * replace the system's /dev/null with a regular file, `-o FIFO` the pipe a
 * reader waits on, `-o LINK` the symbolic link. So, as compilers do:
 *  - a symbolic link is followed (to the end of its chain, dangling or not)
 *    and the file it names is the destination, the link itself kept;
 *  - a device, FIFO or socket is opened (a socket connected) at commit and
 *    the complete output written into it; until then it goes to an unnamed
 *    memory file, since libelf needs a file it can seek in;
 *  - a directory is an error before anything is created.
 */
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#define MAX_LINKS 40 /* as the kernel's path walk: ELOOP beyond */

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

static int write_all(int fd, const void *buf, size_t sz)
{
	const char *p = buf;

	while (sz) {
		ssize_t n = write(fd, p, sz);

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

/*
 * The file path finally names: symbolic links followed to the end of their
 * chain, the last one perhaps dangling (the output then creates what it
 * names). Relative link targets are taken from the link's directory.
 */
static int resolve_links(const char *path, char **ret_path)
{
	char *cur = udt__xstrdup(path);

	for (int hops = 0;; hops++) {
		struct stat st;
		char target[4096];

		if (lstat(cur, &st) < 0 || !S_ISLNK(st.st_mode))
			break;
		if (hops == MAX_LINKS) {
			free(cur);
			return -ELOOP;
		}
		ssize_t n = readlink(cur, target, sizeof(target) - 1);
		if (n < 0 || (size_t)n == sizeof(target) - 1) {
			int err = n < 0 ? -errno : -ENAMETOOLONG;
			free(cur);
			return err;
		}
		target[n] = '\0';
		char *next;
		if (target[0] == '/') {
			next = udt__xstrdup(target);
		} else {
			char *dir = dir_of(cur);
			next = udt__xasprintf("%s/%s", dir, target);
			free(dir);
		}
		free(cur);
		cur = next;
	}
	*ret_path = cur;
	return 0;
}

static void set_mode_from_umask(int fd)
{
	mode_t um = umask(0);

	umask(um);
	(void)fchmod(fd, 0666 & ~um);
}

int udt__outfile_open(struct udt_outfile *of, const char *path)
{
	struct stat st;
	char *dest = NULL, *dir;
	int fd, err;

	of->fd = -1;
	of->path = NULL;
	of->tmpname = NULL;
	of->special = false;

	err = resolve_links(path, &dest);
	if (err)
		return err;
	if (stat(dest, &st) == 0) {
		if (S_ISDIR(st.st_mode)) {
			free(dest);
			return -EISDIR;
		}
		of->special = !S_ISREG(st.st_mode);
	} else if (errno != ENOENT) {
		err = -errno;
		free(dest);
		return err;
	}

	if (of->special) {
		/* Written into the destination at commit; libelf needs to seek. */
		fd = memfd_create("dtrace-output", MFD_CLOEXEC);
		if (fd < 0) {
			err = -errno;
			free(dest);
			return err;
		}
		of->fd = fd;
		of->path = dest;
		return 0;
	}

	dir = dir_of(dest);
	fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
	free(dir);
	if (fd < 0) {
		char *tmp = temp_template(dest);

		fd = mkostemp(tmp, O_CLOEXEC);
		if (fd < 0) {
			err = -errno;
			free(tmp);
			free(dest);
			return err;
		}
		of->tmpname = tmp;
	}
	/* O_TMPFILE ignores the umask for mode 0666 on some kernels; mkstemp uses 0600. */
	set_mode_from_umask(fd);
	of->fd = fd;
	of->path = dest;
	return 0;
}

int udt__outfile_write(struct udt_outfile *of, const void *buf, size_t sz)
{
	return write_all(of->fd, buf, sz);
}

/* Opens a device or FIFO for writing; a socket is connected instead. */
static int open_special(const char *path)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);

	if (fd >= 0 || errno != ENXIO)
		return fd < 0 ? -errno : fd;

	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	if (strlen(path) >= sizeof(sun.sun_path))
		return -ENAMETOOLONG;
	strcpy(sun.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
		int err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

/* Copies the finished output from the memory file into the destination. */
static int commit_special(struct udt_outfile *of)
{
	char chunk[65536];
	int out, err = 0;

	if (lseek(of->fd, 0, SEEK_SET) < 0)
		return -errno;
	out = open_special(of->path);
	if (out < 0)
		return out;
	for (;;) {
		ssize_t n = read(of->fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? -errno : 0;
			break;
		}
		err = write_all(out, chunk, (size_t)n);
		if (err)
			break;
	}
	if (close(out) < 0 && !err && errno != EINTR)
		err = -errno;
	return err;
}

/* Gives the unnamed O_TMPFILE inode a unique temporary name beside the destination. */
static int link_unnamed(struct udt_outfile *of)
{
	char proc[64];
	int err = -EEXIST;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", of->fd);
	for (int tries = 0; tries < 100 && err == -EEXIST; tries++) {
		char *tmp = temp_template(of->path);
		int fd = mkstemp(tmp);

		if (fd < 0) {
			err = -errno;
			free(tmp);
			break;
		}
		/* mkstemp reserved a unique name; replace it with our inode. */
		close(fd);
		(void)unlink(tmp);
		if (linkat(AT_FDCWD, proc, AT_FDCWD, tmp, AT_SYMLINK_FOLLOW) == 0) {
			of->tmpname = tmp;
			return 0;
		}
		err = -errno;
		free(tmp);
	}
	return err;
}

int udt__outfile_commit(struct udt_outfile *of)
{
	int err = 0;

	if (of->special)
		err = commit_special(of);
	else if (!of->tmpname)
		err = link_unnamed(of);
	if (err)
		return err;
	if (close(of->fd) < 0) {
		of->fd = -1;
		return -errno;
	}
	of->fd = -1;
	if (!of->special && rename(of->tmpname, of->path) < 0)
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

int udt__open_regular(const char *path, int flags, struct stat *ret_st)
{
	struct stat st, st2;
	char self[64];
	int pfd, fd, err;

	pfd = open(path, O_PATH | O_CLOEXEC);
	if (pfd < 0)
		return -errno;
	if (fstat(pfd, &st)) {
		err = -errno;
		goto out;
	}
	err = -EINVAL;
	if (!S_ISREG(st.st_mode))
		goto out;
	snprintf(self, sizeof(self), "/proc/self/fd/%d", pfd);
	fd = open(self, flags | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		err = -errno;
		goto out;
	}
	/* (the same file: a descriptor's link cannot be swapped, but say so) */
	if (fstat(fd, &st2) || st2.st_dev != st.st_dev || st2.st_ino != st.st_ino) {
		(void)close(fd);
		goto out;
	}
	if (ret_st)
		*ret_st = st2;
	(void)close(pfd);
	return fd;
out:
	(void)close(pfd);
	return err;
}
