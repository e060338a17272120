/* SPDX-License-Identifier: MIT */
/*
 * Finding processes (docs/processes.md): which processes are started,
 * forked, exec'd and gone while a session runs, for dtrace to follow the
 * forks of the processes it traces and, given a probe description without
 * -p or -c, to look at every process that appears.
 *
 * Two sources, the cheaper first:
 *
 *  - The kernel's process events (the proc connector: a NETLINK_CONNECTOR
 *    socket listening to CN_IDX_PROC): a message for every fork, exec and
 *    exit on the system, as it happens. It costs nothing while nothing
 *    happens, and the main loop polls its descriptor. Linux lets any user
 *    listen since 6.6; before, it takes CAP_NET_ADMIN, and it is refused in
 *    a user or PID namespace other than the first (a container). Thread
 *    creations and exits are left out (a thread's pid is not its group's).
 *    A socket that overflows (ENOBUFS: events were lost) is followed by a
 *    scan, which makes up the forks and exits it missed.
 *  - Otherwise, /proc, every SCAN_NS: its directory read (one getdents of
 *    a few KB per 100 processes) and compared with the last, so that a new
 *    pid is a fork (its parent read from /proc/PID/stat) and a pid gone an
 *    exit. An exec between two scans is not seen here: the caller checks
 *    the processes it traces (their sessions end), and looks again at the
 *    others now and then.
 *
 * Both keep the set of processes known (pid and start time, sorted by pid),
 * which the scan compares with and which pr_watch_list() gives.
 */
#include "proc/proc.h"
#include "util/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <unistd.h>

#define SCAN_NS 100000000ull       /* /proc is read every 100 ms without process events */

struct known {
	pid_t pid;
	uint64_t start;            /* its start time (/proc/PID/stat, clock ticks since boot) */
};

struct pr_watch {
	int nl;                    /* the process events' socket, or -1: scanning /proc */
	bool resync;               /* events were lost: scan once */
	uint64_t last_scan;
	struct known *k;           /* sorted by pid */
	size_t cnt, cap;
	struct pr_pev *ev;         /* the events not taken yet */
	size_t ev_cnt, ev_cap;
};

int pr_pid_stat(pid_t pid, pid_t *ret_ppid, uint64_t *ret_start, char *ret_state)
{
	char path[64], buf[1024];
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -ESRCH;
	buf[n] = '\0';
	/* "pid (comm) S ppid ...": the command may hold spaces and parentheses, the last
	   ')' ends it; then state, ppid, and the start time is the 20th field after it */
	char *p = strrchr(buf, ')');
	if (!p)
		return -EINVAL;
	char state;
	int ppid;
	unsigned long long start = 0;
	if (sscanf(p + 1, " %c %d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d "
		   "%*d %*d %llu", &state, &ppid, &start) != 3)
		return -EINVAL;
	if (ret_ppid)
		*ret_ppid = ppid;
	if (ret_start)
		*ret_start = start;
	if (ret_state)
		*ret_state = state;
	return 0;
}

static void push_ev(struct pr_watch *w, enum pr_pev_kind kind, pid_t pid, pid_t parent)
{
	struct pr_pev e = { kind, pid, parent };

	UDT__PUSH(w->ev, w->ev_cnt, w->ev_cap, e);
}

/* The index of pid in the known set, or where it would go. */
static size_t find(const struct pr_watch *w, pid_t pid, bool *ret_found)
{
	size_t lo = 0, hi = w->cnt;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (w->k[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	*ret_found = lo < w->cnt && w->k[lo].pid == pid;
	return lo;
}

static void forget(struct pr_watch *w, pid_t pid)
{
	bool found;
	size_t i = find(w, pid, &found);

	if (!found)
		return;
	memmove(&w->k[i], &w->k[i + 1], (w->cnt - i - 1) * sizeof(*w->k));
	w->cnt--;
}

static void learn(struct pr_watch *w, pid_t pid, uint64_t start)
{
	bool found;
	size_t i = find(w, pid, &found);

	if (found) {
		w->k[i].start = start;
		return;
	}
	if (w->cnt == w->cap) {
		w->cap = w->cap ? 2 * w->cap : 256;
		w->k = udt__xreallocarray(w->k, w->cap, sizeof(*w->k));
	}
	memmove(&w->k[i + 1], &w->k[i], (w->cnt - i) * sizeof(*w->k));
	w->k[i] = (struct known){ pid, start };
	w->cnt++;
}

static int pid_cmp(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return x < y ? -1 : x > y;
}

size_t pr_pids(pid_t **ret)
{
	DIR *d = opendir("/proc");
	pid_t *v = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;

	if (!d) {
		*ret = NULL;
		return 0;
	}
	while ((de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);
		if (*end || pid <= 0 || de->d_name[0] == '0')
			continue;
		UDT__PUSH(v, n, cap, (pid_t)pid);
	}
	closedir(d);
	qsort(v, n, sizeof(*v), pid_cmp);
	*ret = v;
	return n;
}

/*
 * Compare /proc with the known set: a pid gone is an exit; a new one (or one
 * whose start time changed: the pid was reused) a fork of its parent, as
 * /proc/PID/stat says (0 when it is gone already).
 */
static void scan(struct pr_watch *w)
{
	pid_t *now;
	size_t n = pr_pids(&now), i = 0, j = 0;
	struct known *k = udt__xcalloc(n + 1, sizeof(*k));
	size_t kn = 0;

	while (i < w->cnt || j < n) {
		if (j == n || (i < w->cnt && w->k[i].pid < now[j])) {
			push_ev(w, PR_PEV_EXIT, w->k[i++].pid, 0);
			continue;
		}
		pid_t pid = now[j++], ppid = 0;
		uint64_t start = 0;
		if (i < w->cnt && w->k[i].pid == pid) {
			/* known: its start time is read again only after lost events (a start of
			   0 was learnt from an event, and is taken as it is now) */
			struct known was = w->k[i++];
			k[kn++] = was;
			if (!w->resync || pr_pid_stat(pid, &ppid, &start, NULL))
				continue;
			k[kn - 1].start = start;
			if (!was.start || start == was.start)
				continue;
			push_ev(w, PR_PEV_EXIT, pid, 0); /* the pid was reused */
		} else {
			if (pr_pid_stat(pid, &ppid, &start, NULL))
				continue; /* (gone already) */
			k[kn++] = (struct known){ pid, start };
		}
		push_ev(w, PR_PEV_FORK, pid, ppid);
	}
	free(w->k);
	w->k = k;
	w->cnt = kn;
	w->cap = n + 1;
	free(now);
	w->resync = false;
	w->last_scan = udt__now_ns();
}

/* Listen to the kernel's process events. The socket, or -1 where it is not allowed. */
static int events_open(void)
{
	int s = socket(PF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_CONNECTOR);
	struct sockaddr_nl a = { .nl_family = AF_NETLINK, .nl_groups = CN_IDX_PROC };
	/* a netlink header, a connector message, and its operation */
	uint8_t msg[NLMSG_SPACE(sizeof(struct cn_msg) + sizeof(enum proc_cn_mcast_op))]
		__attribute__((aligned(NLMSG_ALIGNTO)));
	struct nlmsghdr *h = (struct nlmsghdr *)(void *)msg;
	struct cn_msg *m = NLMSG_DATA(h);
	enum proc_cn_mcast_op op = PROC_CN_MCAST_LISTEN;
	int big = 4 << 20;

	if (s < 0)
		return -errno;
	if (bind(s, (struct sockaddr *)&a, sizeof(a)))
		goto fail;
	/* room for a burst of forks while a round is busy (root may raise it past rmem_max) */
	if (setsockopt(s, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big)))
		(void)setsockopt(s, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	memset(msg, 0, sizeof(msg));
	h->nlmsg_len = NLMSG_LENGTH(sizeof(*m) + sizeof(op));
	h->nlmsg_type = NLMSG_DONE;
	h->nlmsg_pid = 0;
	m->id.idx = CN_IDX_PROC;
	m->id.val = CN_VAL_PROC;
	m->len = sizeof(op);
	memcpy(m->data, &op, sizeof(op));
	if (send(s, msg, h->nlmsg_len, 0) != (ssize_t)h->nlmsg_len)
		goto fail;
	return s;
fail:;
	int err = errno ? errno : EIO;
	close(s);
	return -err;
}

/* Take what the socket holds. */
static void events_read(struct pr_watch *w)
{
	uint8_t buf[8192] __attribute__((aligned(NLMSG_ALIGNTO)));

	for (;;) {
		struct sockaddr_nl from;
		socklen_t from_len = sizeof(from);
		ssize_t n = recvfrom(w->nl, buf, sizeof(buf), 0, (struct sockaddr *)&from, &from_len);
		if (n < 0) {
			if (errno == ENOBUFS)
				w->resync = true; /* lost some: a scan makes them up */
			if (errno == EINTR || errno == ENOBUFS)
				continue;
			return; /* EAGAIN: all taken */
		}
		/* (the kernel's only: any process may send to our socket) */
		if (from_len != sizeof(from) || from.nl_pid != 0)
			continue;
		for (struct nlmsghdr *h = (void *)buf; NLMSG_OK(h, (size_t)n); h = NLMSG_NEXT(h, n)) {
			struct cn_msg *m = NLMSG_DATA(h);
			struct proc_event ev;
			const struct proc_event *e = &ev;
			if (h->nlmsg_type != NLMSG_DONE ||
			    h->nlmsg_len < NLMSG_LENGTH(sizeof(*m) + sizeof(ev)) ||
			    m->id.idx != CN_IDX_PROC || m->len < sizeof(ev))
				continue;
			/* (4-aligned in the message: copied to be read) */
			memcpy(&ev, m->data, sizeof(ev));
			switch (e->what) {
			case PROC_EVENT_FORK:
				/* (a thread: its pid is not its group's) */
				if (e->event_data.fork.child_pid != e->event_data.fork.child_tgid)
					break;
				learn(w, e->event_data.fork.child_tgid, 0);
				push_ev(w, PR_PEV_FORK, e->event_data.fork.child_tgid,
					e->event_data.fork.parent_tgid);
				break;
			case PROC_EVENT_EXEC:
				push_ev(w, PR_PEV_EXEC, e->event_data.exec.process_tgid, 0);
				break;
			case PROC_EVENT_EXIT:
				if (e->event_data.exit.process_pid != e->event_data.exit.process_tgid)
					break;
				forget(w, e->event_data.exit.process_tgid);
				push_ev(w, PR_PEV_EXIT, e->event_data.exit.process_tgid, 0);
				break;
			default:
				break;
			}
		}
	}
}

int pr_watch_open(struct pr_watch **ret, enum pr_watch_how how, char **ret_err)
{
	int nl = how == PR_WATCH_SCAN ? -1 : events_open();
	pid_t *now;
	size_t n;

	if (nl < 0 && how == PR_WATCH_EVENTS) {
		*ret_err = udt__xasprintf("the kernel's process events are not available "
					  "(-x procwatch=events): %s", strerror(-nl));
		return -1;
	}
	struct pr_watch *w = udt__xcalloc(1, sizeof(*w));
	w->nl = nl < 0 ? -1 : nl;
	/* the processes there are now: known, not events */
	n = pr_pids(&now);
	for (size_t i = 0; i < n; i++) {
		uint64_t start = 0;
		if (!pr_pid_stat(now[i], NULL, &start, NULL))
			learn(w, now[i], start);
	}
	free(now);
	w->last_scan = udt__now_ns();
	*ret = w;
	return 0;
}

void pr_watch_close(struct pr_watch *w)
{
	if (!w)
		return;
	if (w->nl >= 0)
		close(w->nl);
	free(w->k);
	free(w->ev);
	free(w);
}

int pr_watch_fd(const struct pr_watch *w)
{
	return w ? w->nl : -1;
}

uint64_t pr_watch_due_in(const struct pr_watch *w)
{
	uint64_t now = udt__now_ns();

	if (!w || w->nl >= 0)
		return UINT64_MAX;
	return now - w->last_scan >= SCAN_NS ? 0 : SCAN_NS - (now - w->last_scan);
}

size_t pr_watch_take(struct pr_watch *w, struct pr_pev **ret)
{
	if (w->nl >= 0)
		events_read(w);
	if (w->resync || (w->nl < 0 && udt__now_ns() - w->last_scan >= SCAN_NS))
		scan(w);
	*ret = w->ev;
	size_t n = w->ev_cnt;
	w->ev = NULL;
	w->ev_cnt = w->ev_cap = 0;
	return n;
}

size_t pr_watch_count(const struct pr_watch *w)
{
	return w ? w->cnt : 0;
}

size_t pr_watch_list(const struct pr_watch *w, pid_t **ret)
{
	pid_t *v = udt__xcalloc(w->cnt + 1, sizeof(*v));

	for (size_t i = 0; i < w->cnt; i++)
		v[i] = w->k[i].pid;
	*ret = v;
	return w->cnt;
}

long pr_pid_uid(pid_t pid)
{
	char path[64], *buf = NULL, *u;
	size_t len;
	long uid = -1;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (udt__read_file(path, &buf, &len))
		return -1;
	/* ("Uid: real effective saved fs") */
	if ((u = strstr(buf, "\nUid:")))
		(void)sscanf(u + 5, "%*d %ld", &uid);
	free(buf);
	return uid;
}

char *pr_pid_cmd_exe(pid_t pid)
{
	char path[64], *cmd = NULL, *exe = NULL;
	size_t len;
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	if (udt__read_file(path, &cmd, &len) || !len) {
		free(cmd);
		return NULL;
	}
	/* argv[0]: a path, or a name looked up as dtrace's PATH would */
	if (cmd[0] == '/') {
		exe = udt__xstrdup(cmd);
	} else if (!strchr(cmd, '/')) {
		const char *pp = getenv("PATH");
		char *dirs = udt__xstrdup(pp ? pp : "/usr/bin:/bin");
		for (char *d = strtok(dirs, ":"); d && !exe; d = strtok(NULL, ":")) {
			char *c = udt__xasprintf("%s/%s", d, cmd);
			if (!stat(c, &st) && S_ISREG(st.st_mode))
				exe = c;
			else
				free(c);
		}
		free(dirs);
	}
	free(cmd);
	return exe;
}
