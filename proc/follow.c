/* SPDX-License-Identifier: MIT */
/*
 * The handshakes of processes dtrace starts (docs/processes.md, "New images
 * under -c"): -c's command waits in its runtime's constructor on a socket
 * pair until dtrace has attached ('R', then 'S' -> 'M' for its buffers, then
 * 'G': runtime/session.c), and each new image of its descendants announces
 * itself on the follow socket (a SOCK_SEQPACKET pair they all inherit) with
 * one end of a pair of its own, on which the same handshake runs.
 *
 * What arrives on the follow socket is the target's word: the sender's pid
 * is the kernel's (SCM_CREDENTIALS), a message without it or without one
 * descriptor is dropped, and any descriptor more is closed.
 */
#include "proc/proc.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

bool pr_sync_step(int fd, char c, char reply, int ms)
{
	struct pollfd pfd = { fd, POLLIN, 0 };
	char b;

	if (c && send(fd, &c, 1, MSG_NOSIGNAL) != 1)
		return false;
	return !reply || (poll(&pfd, 1, ms) > 0 && read(fd, &b, 1) == 1 && b == reply);
}

int pr_follow_pair(int ret[2])
{
	int on = 1;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ret))
		return -errno;
	if (setsockopt(ret[0], SOL_SOCKET, SO_PASSCRED, &on, sizeof(on))) {
		int err = -errno;
		close(ret[0]);
		close(ret[1]);
		return err;
	}
	return 0;
}

int pr_follow_take(int fd, pid_t *ret_pid)
{
	for (;;) {
		char b;
		union {
			struct cmsghdr h;
			char buf[CMSG_SPACE(sizeof(struct ucred)) + CMSG_SPACE(4 * sizeof(int))];
		} u;
		struct iovec iov = { &b, 1 };
		struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
				    .msg_controllen = sizeof(u.buf) };
		ssize_t r = recvmsg(fd, &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		pid_t pid = 0;
		int got = -1;
		for (struct cmsghdr *h = CMSG_FIRSTHDR(&m); h; h = CMSG_NXTHDR(&m, h)) {
			if (h->cmsg_level != SOL_SOCKET)
				continue;
			if (h->cmsg_type == SCM_CREDENTIALS &&
			    h->cmsg_len >= CMSG_LEN(sizeof(struct ucred))) {
				struct ucred cr;
				memcpy(&cr, CMSG_DATA(h), sizeof(cr));
				pid = cr.pid;
			} else if (h->cmsg_type == SCM_RIGHTS) {
				size_t k = (h->cmsg_len - CMSG_LEN(0)) / sizeof(int);
				for (size_t i = 0; i < k; i++) {
					int d;
					memcpy(&d, CMSG_DATA(h) + i * sizeof(int), sizeof(d));
					if (got < 0)
						got = d;
					else
						close(d);
				}
			}
		}
		if (got >= 0 && pid > 0 && b == 'N' && pid != getpid()) {
			*ret_pid = pid;
			return got;
		}
		if (got >= 0)
			close(got);
	}
}
