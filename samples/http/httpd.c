/* SPDX-License-Identifier: MIT */
/*
 * httpd: the http sample's instrumented server, a small HTTP/1.1 file server
 * that fires the probes of the http provider (samples/http/http.d).
 *
 * Usage: httpd [--addr A] [--port N] --root DIR
 *
 * Design. The main thread listens, and waits in poll() on the listener and on
 * a self-pipe the SIGINT and SIGTERM handler writes to. Each accepted
 * connection gets a detached thread (conn_main) and a struct conn, which is
 * linked on srv.conns from accept until close so that shutdown can reach it.
 * A connection reads the head of a request (request line and headers) into
 * its fixed 8 KiB buffer, parses it in place (NUL-terminating method, target,
 * version and header values where they lie), answers, then moves whatever
 * followed the head (a pipelined request) to the start of the buffer.
 *
 * Files are served from --root only: the target's path is percent-decoded,
 * cleaned to a relative path with no "." or empty segments, refused if it has
 * a ".." segment, and opened relative to the root's descriptor with
 * openat2(RESOLVE_BENEATH) where the kernel has it, so that neither ".." nor
 * an absolute path nor a symbolic link leads out of the root.
 *
 * Probes. conn-accept and conn-close fire on the connection's thread, at its
 * start and just before close(), so that D's thread-local variables link a
 * connection's probes with its requests'. request-start fires once a request
 * is parsed, request-done once its response is written, both with an
 * httpproto_t (httpproto.h) whose strings point into the connection's buffer,
 * valid until request-done has fired. The structure is filled only when one
 * of the two probes is enabled; a probe that becomes enabled between that
 * check and its site is missed once (see the generated header).
 *
 * Shutdown. On SIGINT or SIGTERM the accept loop returns, the listener is
 * closed, every tracked connection is shut down (a thread blocked in recv()
 * then reads end-of-file, one in send() or sendfile() fails), and main waits
 * on a condition variable for the count of connection threads to reach zero.
 * Every response counts as a request in the closing message and in
 * conn-close, malformed requests answered with 400 included.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/openat2.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "http_provider.h"
#include "httpproto.h"

#if defined(__LP64__) || defined(_LP64)
/* provider-support/http.d reads the structure at these offsets. */
_Static_assert(offsetof(httpproto_t, http_lport) == 16, "httpproto_t: http_lport moved");
_Static_assert(offsetof(httpproto_t, http_fd) == 20, "httpproto_t: http_fd moved");
_Static_assert(offsetof(httpproto_t, http_uri) == 32, "httpproto_t: http_uri moved");
_Static_assert(offsetof(httpproto_t, http_bytesread) == 56, "httpproto_t: http_bytesread moved");
_Static_assert(offsetof(httpproto_t, http_status) == 72, "httpproto_t: http_status moved");
_Static_assert(sizeof(httpproto_t) == 80, "httpproto_t: size changed");
#endif

#define HEAD_BUF_SZ 8192 /* request line and headers of one request, per connection */
#define IO_TIMEOUT_SEC 30 /* an idle or stalled connection is dropped after this */
#define COPY_BUF_SZ 16384 /* read()/send() chunk where sendfile() cannot be used */
#define LINGER_MS 2000 /* how long a connection we close drains the client's input */

struct conn {
	int fd;
	struct sockaddr_storage peer; /* from accept() */
	bool named; /* the address strings below are filled in */
	uint16_t lport, rport;
	char laddr[INET6_ADDRSTRLEN];
	char raddr[INET6_ADDRSTRLEN];
	char remote[INET6_ADDRSTRLEN + 16]; /* "ip:port", "[ip6]:port" */
	unsigned long served; /* requests answered on this connection */
	size_t len; /* bytes in buf */
	char buf[HEAD_BUF_SZ];
	struct conn *prev, *next; /* on srv.conns, protected by srv.lock */
};

/* A parsed request head: the strings point into the connection's buffer. */
struct request {
	const char *method;
	const char *target;
	const char *version;
	const char *useragent; /* "" when there is no User-Agent header */
	size_t head_sz; /* bytes of the head, its ending empty line included */
	bool keep_alive; /* by the version and the Connection header */
	bool has_body; /* a body follows, which this server does not read */
};

struct reply {
	unsigned status;
	uint64_t written; /* bytes sent, head and body */
	bool complete; /* all of it was sent */
};

static struct {
	int root_fd;
	int sig_pipe[2]; /* the signal handler writes, the accept loop polls */
	pthread_mutex_t lock;
	pthread_cond_t idle; /* signalled when conn_cnt drops to 0 */
	struct conn *conns; /* protected by lock */
	unsigned long conn_cnt; /* running connection threads, protected by lock */
	atomic_ulong requests; /* responses sent, all connections */
} srv = {
	.root_fd = -1,
	.sig_pipe = { -1, -1 },
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.idle = PTHREAD_COND_INITIALIZER,
};

/* ---- addresses ---- */

/* The address of sa as text, and its port. */
static void addr_text(const struct sockaddr_storage *sa, char *ip, size_t ip_sz, uint16_t *ret_port)
{
	const void *a;

	if (sa->ss_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const void *)sa;

		a = &s6->sin6_addr;
		*ret_port = ntohs(s6->sin6_port);
	} else {
		const struct sockaddr_in *s4 = (const void *)sa;

		a = &s4->sin_addr;
		*ret_port = ntohs(s4->sin_port);
	}
	if (!inet_ntop(sa->ss_family, a, ip, ip_sz))
		snprintf(ip, ip_sz, "?");
}

/* "ip:port", with the IPv6 address in brackets so the port stays readable. */
static void addr_port_text(const struct sockaddr_storage *sa, char *buf, size_t buf_sz)
{
	char ip[INET6_ADDRSTRLEN];
	uint16_t port;

	addr_text(sa, ip, sizeof(ip), &port);
	snprintf(buf, buf_sz, sa->ss_family == AF_INET6 ? "[%s]:%u" : "%s:%u", ip, port);
}

/*
 * Fills in the connection's address strings, the first time a probe needs
 * them: an untraced server spends no getsockname() or inet_ntop() on them.
 * Called on the connection's own thread only.
 */
static void conn_name(struct conn *c)
{
	struct sockaddr_storage local = { .ss_family = AF_INET };
	socklen_t len = sizeof(local);

	if (c->named)
		return;
	addr_text(&c->peer, c->raddr, sizeof(c->raddr), &c->rport);
	addr_port_text(&c->peer, c->remote, sizeof(c->remote));
	if (getsockname(c->fd, (struct sockaddr *)&local, &len) == 0) {
		addr_text(&local, c->laddr, sizeof(c->laddr), &c->lport);
	} else {
		snprintf(c->laddr, sizeof(c->laddr), "?");
		c->lport = 0;
	}
	c->named = true;
}

/* ---- parsing the request head ---- */

/*
 * The size of the request head at the start of buf (empty lines before the
 * request line, which RFC 9112 §2.2 says to ignore, the request line, the
 * headers and the empty line ending them), or 0 while it is incomplete.
 * Lines may end in CR LF or in a bare LF.
 */
static size_t head_size(const char *buf, size_t len)
{
	size_t i = 0;

	while (i < len && (buf[i] == '\r' || buf[i] == '\n'))
		i++;
	for (; i < len; i++) {
		if (buf[i] != '\n')
			continue;
		if (i + 1 < len && buf[i + 1] == '\n')
			return i + 2;
		if (i + 2 < len && buf[i + 1] == '\r' && buf[i + 2] == '\n')
			return i + 3;
	}
	return 0;
}

/*
 * Reads until the buffer holds a whole request head. Returns 1 with its size,
 * 0 when the connection ended (or timed out, or was shut down) first, and -1
 * when the head does not fit in the buffer.
 */
static int read_head(struct conn *c, size_t *ret_sz)
{
	for (;;) {
		size_t sz = head_size(c->buf, c->len);
		ssize_t n;

		if (sz) {
			*ret_sz = sz;
			return 1;
		}
		if (c->len == sizeof(c->buf))
			return -1;
		n = recv(c->fd, c->buf + c->len, sizeof(c->buf) - c->len, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return 0;
		c->len += (size_t)n;
	}
}

/* Cuts the line at *p out of the head, NUL-terminated without its CR LF, and moves past it. */
static char *next_line(char **p, char *end)
{
	char *line = *p;
	char *nl = memchr(line, '\n', (size_t)(end - line));

	/* head_size() found the empty line at the end: every line has its LF */
	*p = nl + 1;
	if (nl > line && nl[-1] == '\r')
		nl--;
	*nl = '\0';
	return line;
}

/* A token of RFC 9110 §5.6.2: methods and header names. */
static bool is_token(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++) {
		if (!isalnum((unsigned char)*s) && !strchr("!#$%&'*+-.^_`|~", *s))
			return false;
	}
	return true;
}

/* A request target: printable ASCII without spaces. */
static bool is_target(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++) {
		if ((unsigned char)*s <= ' ' || (unsigned char)*s >= 0x7f)
			return false;
	}
	return true;
}

/* s without the spaces and tabs around it (cut in place). */
static char *trim(char *s)
{
	size_t n;

	s += strspn(s, " \t");
	n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	s[n] = '\0';
	return s;
}

/* Whether the comma-separated list has tok in it, in any case ("Keep-Alive, Upgrade"). */
static bool has_token(const char *list, const char *tok)
{
	size_t tok_len = strlen(tok);

	while (*list) {
		size_t n, m;

		list += strspn(list, " \t,");
		n = strcspn(list, ",");
		m = n;
		while (m && (list[m - 1] == ' ' || list[m - 1] == '\t'))
			m--;
		if (m == tok_len && !strncasecmp(list, tok, tok_len))
			return true;
		list += n;
	}
	return false;
}

/* "METHOD target HTTP/x.y": 0, or the status refusing it. */
static int parse_request_line(char *line, struct request *rq)
{
	char *sp;

	rq->method = line;
	sp = strchr(line, ' ');
	if (!sp)
		return 400;
	*sp = '\0';
	rq->target = sp + 1;
	sp = strchr(sp + 1, ' ');
	if (!sp)
		return 400;
	*sp = '\0';
	rq->version = sp + 1;
	if (!is_token(rq->method) || !is_target(rq->target))
		return 400;
	if (!strcmp(rq->version, "HTTP/1.1") || !strcmp(rq->version, "HTTP/1.0"))
		return 0;
	/* a well-formed version this server does not speak (HTTP/2.0, HTTP/0.9) */
	if (!strncmp(rq->version, "HTTP/", 5) && isdigit((unsigned char)rq->version[5]) &&
	    rq->version[6] == '.' && isdigit((unsigned char)rq->version[7]) && !rq->version[8])
		return 505;
	return 400;
}

/* What the headers decide, gathered over all of them before it is applied. */
struct head_flags {
	int host_cnt;
	bool conn_close;
	bool conn_keep_alive;
};

/* "Name: value": 0, or the status refusing it. */
static int parse_header(char *line, struct request *rq, struct head_flags *hf)
{
	char *colon = strchr(line, ':');
	char *value;

	/*
	 * No name, a space before the colon, or a continuation line (obsolete
	 * folding): all refused, as RFC 9112 §5.1 and §5.2 allow.
	 */
	if (!colon)
		return 400;
	*colon = '\0';
	if (!is_token(line))
		return 400;
	value = trim(colon + 1);

	if (!strcasecmp(line, "Host")) {
		hf->host_cnt++;
	} else if (!strcasecmp(line, "User-Agent")) {
		rq->useragent = value;
	} else if (!strcasecmp(line, "Connection")) {
		hf->conn_close |= has_token(value, "close");
		hf->conn_keep_alive |= has_token(value, "keep-alive");
	} else if (!strcasecmp(line, "Content-Length")) {
		if (!*value || strspn(value, "0123456789") != strlen(value))
			return 400;
		if (strspn(value, "0") != strlen(value))
			rq->has_body = true;
	} else if (!strcasecmp(line, "Transfer-Encoding")) {
		rq->has_body = true;
	}
	return 0;
}

/*
 * Parses the head of buf (head_sz bytes, as head_size() found it) in place.
 * Returns 0, or the status of the response refusing the request (400, 505).
 */
static int parse_request(char *buf, size_t head_sz, struct request *rq)
{
	char *p = buf, *end = buf + head_sz;
	struct head_flags hf = { 0 };
	char *line;
	int status;

	*rq = (struct request){ .useragent = "", .head_sz = head_sz };
	/* a NUL would cut a string short of what the checks below saw */
	if (memchr(buf, '\0', head_sz))
		return 400;
	while (*p == '\r' || *p == '\n')
		p++;
	status = parse_request_line(next_line(&p, end), rq);
	if (status)
		return status;
	while (*(line = next_line(&p, end))) {
		status = parse_header(line, rq, &hf);
		if (status)
			return status;
	}
	/* HTTP/1.1 requests name their host exactly once (RFC 9112 §3.2) */
	if (!strcmp(rq->version, "HTTP/1.1") && hf.host_cnt != 1)
		return 400;
	if (hf.conn_close)
		rq->keep_alive = false;
	else
		rq->keep_alive = !strcmp(rq->version, "HTTP/1.1") || hf.conn_keep_alive;
	return 0;
}

/* ---- mapping the target to a file ---- */

static int hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * Rewrites path in place as a relative path: no empty or "." segments, no
 * leading '/'. Returns 404 for a ".." segment, whatever its position.
 */
static int clean_path(char *path)
{
	char *r = path, *w = path;

	while (*r) {
		size_t n;

		r += strspn(r, "/");
		n = strcspn(r, "/");
		if (!n)
			break;
		if (n == 2 && r[0] == '.' && r[1] == '.')
			return 404;
		if (n != 1 || r[0] != '.') {
			/* w stays behind r: at least one '/' was skipped since the last copy */
			if (w != path)
				*w++ = '/';
			memmove(w, r, n);
			w += n;
		}
		r += n;
	}
	*w = '\0';
	return 0;
}

/*
 * The file a request target names, relative to the root: the target's path
 * (what precedes '?'), percent-decoded, then cleaned. The check for ".."
 * comes after decoding, so "%2e%2e" and "..%2f" are caught too. The root
 * itself ("/", "/?q", "//") names index.html. Returns 0 or the status to
 * answer with: 400 for a target not in origin form or a bad escape, 404 for
 * what cannot name a file under the root.
 */
static int target_path(const char *target, char *path, size_t path_sz)
{
	size_t n = 0;
	int status;

	if (target[0] != '/')
		return 400;
	for (const char *s = target; *s && *s != '?'; s++) {
		int ch = (unsigned char)*s;

		if (ch == '%') {
			int hi = hex_value(s[1]);
			int lo = hi < 0 ? -1 : hex_value(s[2]);

			if (lo < 0)
				return 400;
			ch = hi << 4 | lo;
			if (!ch)
				return 404;
			s += 2;
		}
		if (n + 1 >= path_sz)
			return 404;
		path[n++] = (char)ch;
	}
	path[n] = '\0';
	status = clean_path(path);
	if (status)
		return status;
	if (!path[0])
		snprintf(path, path_sz, "index.html");
	return 0;
}

/*
 * Opens path, a clean relative path, beneath the root. Without openat2()
 * (Linux before 5.6, or a seccomp filter refusing it) the plain openat() can
 * still follow a symbolic link that the root itself holds out of it; ".."
 * and absolute paths cannot get that far (clean_path()).
 */
static int open_beneath(const char *path)
{
	/* a hint only: either value gives a correct open */
	static atomic_bool no_openat2;
	int flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;

#ifdef SYS_openat2
	if (!atomic_load_explicit(&no_openat2, memory_order_relaxed)) {
		struct open_how how = {
			.flags = (uint64_t)flags,
			.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
		};
		long fd = syscall(SYS_openat2, srv.root_fd, path, &how, sizeof(how));

		if (fd >= 0 || (errno != ENOSYS && errno != EPERM))
			return (int)fd;
		atomic_store_explicit(&no_openat2, true, memory_order_relaxed);
	}
#endif
	return openat(srv.root_fd, path, flags);
}

static const char *content_type(const char *path)
{
	static const struct {
		const char *ext;
		const char *type;
	} types[] = {
		{ "html", "text/html" },
		{ "css", "text/css" },
		{ "txt", "text/plain" },
		{ "js", "application/javascript" },
	};
	const char *dot = strrchr(path, '.');

	if (dot && !strchr(dot, '/')) {
		for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
			if (!strcasecmp(dot + 1, types[i].ext))
				return types[i].type;
		}
	}
	return "application/octet-stream";
}

/*
 * Opens the regular file the target names. Returns 0 with the descriptor, its
 * size and its type, or the status to answer with. O_NONBLOCK keeps a FIFO
 * under the root from blocking the open; fstat() then refuses it.
 */
static int open_target(const char *target, int *ret_fd, uint64_t *ret_sz, const char **ret_type)
{
	char path[PATH_MAX];
	struct stat st;
	int status, fd;

	status = target_path(target, path, sizeof(path));
	if (status)
		return status;
	fd = open_beneath(path);
	if (fd < 0) {
		switch (errno) {
		case EACCES:
		case EPERM:
			return 403;
		case EMFILE:
		case ENFILE:
		case ENOMEM:
			return 503;
		default:
			/* ENOENT, ENOTDIR, ELOOP, ENAMETOOLONG, EXDEV (leaving the root) */
			return 404;
		}
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		(void)close(fd);
		return 404;
	}
	*ret_fd = fd;
	*ret_sz = (uint64_t)st.st_size;
	*ret_type = content_type(path);
	return 0;
}

/* ---- responding ---- */

static const char *reason(unsigned status)
{
	switch (status) {
	case 200:
		return "OK";
	case 400:
		return "Bad Request";
	case 403:
		return "Forbidden";
	case 404:
		return "Not Found";
	case 501:
		return "Not Implemented";
	case 503:
		return "Service Unavailable";
	case 505:
		return "HTTP Version Not Supported";
	default:
		return "Internal Server Error";
	}
}

/* The response head; returns its length (buf_sz is always enough for it). */
static size_t format_head(char *buf, size_t buf_sz, unsigned status, const char *type,
			  uint64_t body_sz, bool keep_alive)
{
	char date[64];
	struct tm tm;
	time_t now = time(NULL);
	int n;

	if (!gmtime_r(&now, &tm) || !strftime(date, sizeof(date), "%a, %d %b %Y %H:%M:%S GMT", &tm))
		date[0] = '\0';
	n = snprintf(buf, buf_sz,
		     "HTTP/1.1 %u %s\r\n"
		     "Date: %s\r\n"
		     "Server: udtrace-httpd\r\n"
		     "Content-Type: %s\r\n"
		     "Content-Length: %" PRIu64 "\r\n"
		     "Connection: %s\r\n"
		     "\r\n",
		     status, reason(status), date, type, body_sz,
		     keep_alive ? "keep-alive" : "close");
	return n < 0 ? 0 : (size_t)n >= buf_sz ? buf_sz - 1 : (size_t)n;
}

/*
 * Sends all of buf, counting what went out in *written. MSG_MORE when a body
 * follows, so that the head and the start of the body can share a segment;
 * MSG_NOSIGNAL so that a vanished client is an EPIPE, not a SIGPIPE.
 */
static int send_all(int fd, const char *buf, size_t len, bool more, uint64_t *written)
{
	while (len) {
		ssize_t n = send(fd, buf, len, MSG_NOSIGNAL | (more ? MSG_MORE : 0));

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		buf += n;
		len -= (size_t)n;
		*written += (uint64_t)n;
	}
	return 0;
}

/* The body with pread() and send(), for files sendfile() cannot read. */
static int copy_body(int sock, int file, uint64_t off, uint64_t end, uint64_t *written)
{
	char buf[COPY_BUF_SZ];

	while (off < end) {
		size_t want = end - off < sizeof(buf) ? (size_t)(end - off) : sizeof(buf);
		ssize_t n = pread(file, buf, want, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		if (send_all(sock, buf, (size_t)n, false, written) < 0)
			return -1;
		off += (uint64_t)n;
	}
	return 0;
}

/*
 * Sends the first body_sz bytes of the file. A file that shrank since fstat()
 * ends the response short of its Content-Length: the connection is closed
 * then, which is how the client learns of it.
 */
static int send_body(int sock, int file, uint64_t body_sz, uint64_t *written)
{
	off_t off = 0;

	while ((uint64_t)off < body_sz) {
		uint64_t left = body_sz - (uint64_t)off;
		ssize_t n =
			sendfile(sock, file, &off, left > (1u << 30) ? (1u << 30) : (size_t)left);

		if (n > 0) {
			*written += (uint64_t)n;
			continue;
		}
		if (n == 0)
			return -1;
		if (errno == EINTR)
			continue;
		if (errno == EINVAL || errno == ENOSYS)
			return copy_body(sock, file, (uint64_t)off, body_sz, written);
		return -1;
	}
	return 0;
}

/* A status with a one-line text body ("404 Not Found"); no body for HEAD. */
static void reply_status(struct conn *c, unsigned status, bool head_only, bool keep_alive,
			 struct reply *rp)
{
	char msg[512];
	char body[64];
	int body_len = snprintf(body, sizeof(body), "%u %s\n", status, reason(status));
	size_t n = format_head(msg, sizeof(msg) - sizeof(body), status, "text/plain",
			       (uint64_t)body_len, keep_alive);

	if (!head_only) {
		memcpy(msg + n, body, (size_t)body_len);
		n += (size_t)body_len;
	}
	rp->status = status;
	rp->complete = send_all(c->fd, msg, n, false, &rp->written) == 0;
}

/* 200 with the file; headers only for HEAD. */
static void reply_file(struct conn *c, int file, uint64_t file_sz, const char *type, bool head_only,
		       bool keep_alive, struct reply *rp)
{
	char head[512];
	size_t n = format_head(head, sizeof(head), 200, type, file_sz, keep_alive);
	bool body = !head_only && file_sz > 0;

	rp->status = 200;
	if (send_all(c->fd, head, n, body, &rp->written) < 0)
		return;
	if (body && send_body(c->fd, file, file_sz, &rp->written) < 0)
		return;
	rp->complete = true;
}

/* Answers a parsed request. */
static void respond(struct conn *c, const struct request *rq, bool keep_alive, struct reply *rp)
{
	bool head_only = !strcmp(rq->method, "HEAD");
	const char *type;
	uint64_t file_sz;
	int file, status;

	if (!head_only && strcmp(rq->method, "GET")) {
		reply_status(c, 501, false, keep_alive, rp);
		return;
	}
	status = open_target(rq->target, &file, &file_sz, &type);
	if (status) {
		reply_status(c, (unsigned)status, head_only, keep_alive, rp);
		return;
	}
	reply_file(c, file, file_sz, type, head_only, keep_alive, rp);
	(void)close(file);
}

/* ---- connections ---- */

static void proto_fill(httpproto_t *hp, struct conn *c, const struct request *rq)
{
	conn_name(c);
	*hp = (httpproto_t){
		.http_laddr = c->laddr,
		.http_raddr = c->raddr,
		.http_lport = c->lport,
		.http_rport = c->rport,
		.http_fd = c->fd,
		.http_method = rq->method,
		.http_uri = rq->target,
		.http_useragent = rq->useragent,
		.http_version = rq->version,
		.http_bytesread = rq->head_sz,
	};
}

/* Serves one parsed request, between its two probes; true to keep the connection. */
static bool serve_request(struct conn *c, const struct request *rq)
{
	/* a body would have to be read past; closing is simpler and allowed */
	bool keep_alive = rq->keep_alive && !rq->has_body;
	bool traced = HTTP_REQUEST_START_ENABLED() || HTTP_REQUEST_DONE_ENABLED();
	struct reply rp = { 0 };
	httpproto_t hp;

	/* both probes fire only if hp was filled in: the semaphores may change meanwhile */
	if (traced) {
		proto_fill(&hp, c, rq);
		HTTP_REQUEST_START(&hp);
	}
	respond(c, rq, keep_alive, &rp);
	if (traced) {
		hp.http_byteswritten = rp.written;
		hp.http_status = rp.status;
		HTTP_REQUEST_DONE(&hp);
	}
	return keep_alive && rp.complete;
}

static void count_request(struct conn *c)
{
	c->served++;
	/* read by main only after every connection thread is done (srv.lock orders it) */
	atomic_fetch_add_explicit(&srv.requests, 1, memory_order_relaxed);
}

/*
 * The request loop of one connection. Returns false when the client ended it
 * (or went quiet, or shutdown came), true when the server closes it after a
 * response.
 */
static bool conn_serve(struct conn *c)
{
	for (;;) {
		struct request rq;
		size_t head_sz;
		int r, status;
		bool keep;

		r = read_head(c, &head_sz);
		if (r == 0)
			return false;
		status = r < 0 ? 400 : parse_request(c->buf, head_sz, &rq);
		if (status) {
			struct reply rp = { 0 };

			/* the rest of the stream cannot be trusted to be framed right */
			reply_status(c, (unsigned)status, false, false, &rp);
			count_request(c);
			return true;
		}
		keep = serve_request(c, &rq);
		count_request(c);
		if (!keep)
			return true;
		/* keep what followed the head: the next (pipelined) request */
		c->len -= head_sz;
		memmove(c->buf, c->buf + head_sz, c->len);
	}
}

/*
 * Closing with input unread (a body, a pipelined request, the rest of an
 * oversized head) makes the kernel send a reset, which can destroy the
 * response still on its way to the client. So the server half-closes, then
 * reads and drops what comes for up to LINGER_MS, until the client closes
 * too (at once, for a client that honours "Connection: close").
 */
static void conn_linger(struct conn *c)
{
	struct timespec start, now;
	char sink[4096];

	if (shutdown(c->fd, SHUT_WR) < 0 || clock_gettime(CLOCK_MONOTONIC, &start) < 0)
		return;
	for (;;) {
		struct pollfd pfd = { .fd = c->fd, .events = POLLIN };
		long left_ms;
		ssize_t n;

		if (clock_gettime(CLOCK_MONOTONIC, &now) < 0)
			return;
		left_ms = LINGER_MS - (now.tv_sec - start.tv_sec) * 1000 -
			  (now.tv_nsec - start.tv_nsec) / 1000000;
		if (left_ms <= 0)
			return;
		n = poll(&pfd, 1, (int)left_ms);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		n = recv(c->fd, sink, sizeof(sink), MSG_DONTWAIT);
		if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN))
			return;
	}
}

/* Unlinks, closes and frees the connection, and lets shutdown know. */
static void conn_release(struct conn *c)
{
	pthread_mutex_lock(&srv.lock);
	if (c->prev)
		c->prev->next = c->next;
	else
		srv.conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	/* closed under the lock: shutdown never reaches a descriptor number reused meanwhile */
	(void)close(c->fd);
	free(c);
	if (--srv.conn_cnt == 0)
		pthread_cond_broadcast(&srv.idle);
	pthread_mutex_unlock(&srv.lock);
}

static void *conn_main(void *arg)
{
	struct conn *c = arg;

	if (HTTP_CONN_ACCEPT_ENABLED()) {
		conn_name(c);
		HTTP_CONN_ACCEPT(c->fd, c->remote);
	}
	if (conn_serve(c))
		conn_linger(c);
	HTTP_CONN_CLOSE(c->fd, c->served);
	conn_release(c);
	return NULL;
}

static void conn_options(int fd)
{
	struct timeval tv = { .tv_sec = IO_TIMEOUT_SEC };
	int one = 1;

	/* best effort: a connection without them still works */
	(void)setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	(void)setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	/* responses are whole: MSG_MORE groups the head with the body, nothing waits for more */
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/* Tracks the accepted connection and starts its thread (or closes it). */
static void conn_start(int fd, const struct sockaddr_storage *peer)
{
	struct conn *c = calloc(1, sizeof(*c));
	pthread_attr_t attr;
	sigset_t stop_sigs, old;
	pthread_t tid;
	int err;

	if (!c) {
		(void)close(fd);
		return;
	}
	c->fd = fd;
	c->peer = *peer;
	conn_options(fd);

	pthread_mutex_lock(&srv.lock);
	c->next = srv.conns;
	if (srv.conns)
		srv.conns->prev = c;
	srv.conns = c;
	srv.conn_cnt++;
	pthread_mutex_unlock(&srv.lock);

	/*
	 * The thread inherits a mask blocking SIGINT and SIGTERM, so that they
	 * interrupt the accept loop's poll() rather than some connection's recv().
	 */
	sigemptyset(&stop_sigs);
	sigaddset(&stop_sigs, SIGINT);
	sigaddset(&stop_sigs, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &stop_sigs, &old);
	err = pthread_attr_init(&attr);
	if (!err) {
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		err = pthread_create(&tid, &attr, conn_main, c);
		pthread_attr_destroy(&attr);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err)
		conn_release(c);
}

/* Shuts every open connection down, then waits for their threads to finish. */
static void conn_stop_all(void)
{
	pthread_mutex_lock(&srv.lock);
	for (struct conn *c = srv.conns; c; c = c->next)
		(void)shutdown(c->fd, SHUT_RDWR);
	while (srv.conn_cnt)
		pthread_cond_wait(&srv.idle, &srv.lock);
	pthread_mutex_unlock(&srv.lock);
}

/* ---- listening ---- */

static void on_signal(int sig)
{
	int saved = errno;
	char ch = (char)sig;

	ssize_t n;

	/* async-signal-safe; a full pipe (EAGAIN) already holds a wake-up */
	n = write(srv.sig_pipe[1], &ch, 1);
	(void)n;
	errno = saved;
}

static int setup_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	if (pipe2(srv.sig_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
		return -1;
	sigfillset(&sa.sa_mask);
	if (sigaction(SIGINT, &sa, NULL) < 0 || sigaction(SIGTERM, &sa, NULL) < 0)
		return -1;
	/* belt and braces with MSG_NOSIGNAL: sendfile() has no such flag */
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

/*
 * Accepts every connection waiting. Returns -1 when out of descriptors or
 * memory (the caller backs off), 0 otherwise.
 */
static int accept_pending(int lfd)
{
	for (;;) {
		struct sockaddr_storage peer = { .ss_family = AF_INET };
		socklen_t len = sizeof(peer);
		int fd = accept4(lfd, (struct sockaddr *)&peer, &len, SOCK_CLOEXEC);

		if (fd >= 0) {
			conn_start(fd, &peer);
			continue;
		}
		switch (errno) {
		case EAGAIN:
		case EINTR:
			/* back to poll(), which also sees a stop request */
			return 0;
		case EMFILE:
		case ENFILE:
		case ENOBUFS:
		case ENOMEM:
			return -1;
		default:
			/* the client went away before accept (ECONNABORTED, network errors) */
			continue;
		}
	}
}

/* Accepts connections until SIGINT or SIGTERM. */
static int accept_loop(int lfd)
{
	struct pollfd pfd[2] = {
		{ .fd = srv.sig_pipe[0], .events = POLLIN },
		{ .fd = lfd, .events = POLLIN },
	};

	for (;;) {
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			perror("httpd: poll");
			return -1;
		}
		if (pfd[0].revents)
			return 0;
		if (pfd[1].revents && accept_pending(lfd) < 0) {
			/* out of descriptors: wait for connections to close, still heeding signals */
			(void)poll(pfd, 1, 100);
		}
	}
}

/* The listening socket on addr:port; exits on failure. */
static int listen_on(const char *addr, const char *port)
{
	struct addrinfo hints = {
		.ai_flags = AI_PASSIVE | AI_NUMERICHOST | AI_NUMERICSERV,
		.ai_socktype = SOCK_STREAM,
	};
	struct addrinfo *ai = NULL;
	int fd, one = 1, err;

	err = getaddrinfo(addr, port, &hints, &ai);
	if (err) {
		fprintf(stderr, "httpd: --addr %s: %s\n", addr, gai_strerror(err));
		exit(2);
	}
	fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(fd, ai->ai_addr, ai->ai_addrlen) < 0 || listen(fd, SOMAXCONN) < 0) {
		fprintf(stderr, "httpd: cannot listen on %s port %s: %s\n", addr, port,
			strerror(errno));
		exit(1);
	}
	freeaddrinfo(ai);
	return fd;
}

/* Prints the address the listener got (the port --port 0 picked): tests read this line. */
static int announce(int lfd)
{
	struct sockaddr_storage sa = { .ss_family = AF_INET };
	socklen_t len = sizeof(sa);
	char text[INET6_ADDRSTRLEN + 16];

	if (getsockname(lfd, (struct sockaddr *)&sa, &len) < 0)
		return -1;
	addr_port_text(&sa, text, sizeof(text));
	if (printf("listening on %s\n", text) < 0 || fflush(stdout) != 0)
		return -1;
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: httpd [--addr A] [--port N] --root DIR\n"
		   "  --addr A    the address to listen on (default 127.0.0.1)\n"
		   "  --port N    the port (default 0: a free one, printed when listening)\n"
		   "  --root DIR  the directory of the files served\n");
}

/* A port number, 0 to 65535, all digits: returns it, or -1. */
static long parse_port(const char *s)
{
	char *end;
	unsigned long v;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v > 65535)
		return -1;
	return (long)v;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "addr", required_argument, NULL, 'a' },
		{ "port", required_argument, NULL, 'p' },
		{ "root", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *addr = "127.0.0.1", *root = NULL;
	char port[8] = "0";
	int opt, lfd, rc;

	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'a':
			addr = optarg;
			break;
		case 'p':
			if (parse_port(optarg) < 0) {
				fprintf(stderr, "httpd: --port %s: not a port number\n", optarg);
				return 2;
			}
			snprintf(port, sizeof(port), "%ld", parse_port(optarg));
			break;
		case 'r':
			root = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!root || optind != argc) {
		if (!root)
			fprintf(stderr, "httpd: --root is required\n");
		else
			fprintf(stderr, "httpd: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}

	srv.root_fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (srv.root_fd < 0) {
		fprintf(stderr, "httpd: --root %s: %s\n", root, strerror(errno));
		return 1;
	}
	if (setup_signals() < 0) {
		perror("httpd: signals");
		return 1;
	}
	lfd = listen_on(addr, port);
	if (announce(lfd) < 0) {
		perror("httpd: stdout");
		return 1;
	}

	rc = accept_loop(lfd);
	(void)close(lfd);
	conn_stop_all();
	fprintf(stderr, "httpd: shut down after %lu requests\n",
		atomic_load_explicit(&srv.requests, memory_order_relaxed));
	(void)close(srv.root_fd);
	(void)close(srv.sig_pipe[0]);
	(void)close(srv.sig_pipe[1]);
	return rc < 0 ? 1 : 0;
}
