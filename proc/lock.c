/* SPDX-License-Identifier: MIT */
/*
 * The attach lock of a process: flock() on /proc/PID/mem (the same inode
 * for every opener while one holds it open), which only a process allowed
 * to trace the target can open, and which dies with its holder. Consumers
 * take it to change what sessions share in the process and to inject code
 * into it, one at a time; the runtime takes it too, without waiting, before
 * it undoes a session (docs/runtime.md, "Several sessions"). A consumer
 * waits for it at most LOCK_WAIT_NS, and then says who holds it (from
 * /proc/locks).
 */
#include "proc/proc.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#define LOCK_WAIT_NS 5000000000ull

/* The pid holding a flock on the inode of fd, from /proc/locks; 0 if not found. */
static pid_t lock_holder(int fd)
{
	struct stat st;
	char line[256];
	pid_t pid = 0;
	FILE *f;

	if (fstat(fd, &st) || !(f = fopen("/proc/locks", "re")))
		return 0;
	while (!pid && fgets(line, sizeof(line), f)) {
		unsigned maj, min;
		unsigned long long ino;
		int p;
		/* "1: FLOCK  ADVISORY  WRITE 1234 00:05:52859 0 EOF" */
		if (sscanf(line, "%*d: FLOCK %*s %*s %d %x:%x:%llu", &p, &maj, &min, &ino) == 4 &&
		    ino == (unsigned long long)st.st_ino && makedev(maj, min) == st.st_dev &&
		    p != getpid())
			pid = p;
	}
	fclose(f);
	return pid;
}

int pr_attach_lock(pid_t pid, char **ret_err)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int err = errno;
		*ret_err = udt__xasprintf("failed to grab pid %d: %s", (int)pid,
					  err == EPERM || err == EACCES ? "permission denied"
					  : err == ENOENT ? "No such process" : strerror(err));
		return err == ENOENT ? -ESRCH : -err;
	}
	uint64_t t0 = udt__now_ns();
	while (flock(fd, LOCK_EX | LOCK_NB)) {
		if (errno != EWOULDBLOCK && errno != EINTR)
			break; /* (a /proc that cannot lock: nothing to serialize with) */
		if (udt__now_ns() - t0 > LOCK_WAIT_NS) {
			pid_t holder = lock_holder(fd);
			char who[48] = "";
			if (holder)
				snprintf(who, sizeof(who), " (pid %d)", (int)holder);
			*ret_err = udt__xasprintf("failed to grab pid %d: another process%s has held "
						  "its attach lock for %llu seconds", (int)pid, who,
						  LOCK_WAIT_NS / 1000000000ull);
			close(fd);
			return -EWOULDBLOCK;
		}
		struct timespec ms = { 0, 1000000 };
		nanosleep(&ms, NULL);
	}
	return fd;
}

void pr_attach_unlock(int fd)
{
	if (fd >= 0)
		close(fd); /* (releases the lock) */
}
