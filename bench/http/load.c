/* SPDX-License-Identifier: MIT */
/*
 * The load client of the HTTP benchmark (bench/http.sh):
 *
 *   load ADDR:PORT SECONDS CONNECTIONS PATH
 *
 * opens CONNECTIONS keep-alive TCP connections, one thread each, and on each
 * sends "GET PATH HTTP/1.1" requests back to back for SECONDS (a decimal
 * number), one outstanding per connection: the next request leaves when the
 * whole response has arrived. So the rate is set by the server's latency
 * and the client's own, which is what the benchmark compares across server
 * builds and tracers. Prints
 *
 *   requests N seconds S rps R
 *
 * N: completed 200 responses on all connections; S: from the moment every
 * connection is open until the last one has finished its last response (the
 * request in flight when the time is up is completed and counted); R = N / S.
 *
 * A response is read completely: its head up to the empty line, then exactly
 * Content-Length bytes of body, which may arrive in any number of pieces.
 * Any status other than 200, a response without Content-Length, a server
 * that closes the connection or goes quiet for RECV_TIMEOUT_SEC, or a failed
 * connect is an error: the connections stop, the line is still printed, the
 * first error goes to stderr and the exit status is 1 (usage errors: 2).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define RESP_BUF_SZ 16384 /* a response head must fit; bodies are read through it */
#define REQ_BUF_SZ 2048
#define RECV_TIMEOUT_SEC 10 /* a stalled server is an error, not a hang */
#define MAX_CONNS 1024

struct worker {
	pthread_t tid;
	unsigned long done; /* 200 responses completed */
	char err[256]; /* the first error, "" if none */
};

static struct {
	struct addrinfo *ai;
	char req[REQ_BUF_SZ];
	size_t req_len;
	pthread_barrier_t ready; /* the workers and main: every connection is open */
	atomic_bool stop; /* set by main when the time is up, or by a worker that failed */
	pthread_mutex_t lock;
	pthread_cond_t failed; /* a worker failed: main need not wait out the time */
} ld = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
};

static void fail(struct worker *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Records the worker's first error and stops every connection. */
static void fail(struct worker *w, const char *fmt, ...)
{
	va_list ap;

	if (!w->err[0]) {
		va_start(ap, fmt);
		vsnprintf(w->err, sizeof(w->err), fmt, ap);
		va_end(ap);
	}
	/* relaxed: the flag carries no data, the workers' results travel by pthread_join */
	atomic_store_explicit(&ld.stop, true, memory_order_relaxed);
	pthread_mutex_lock(&ld.lock);
	pthread_cond_signal(&ld.failed);
	pthread_mutex_unlock(&ld.lock);
}

static int connect_server(struct worker *w)
{
	struct timeval tv = { .tv_sec = RECV_TIMEOUT_SEC };
	int one = 1;
	int fd;

	fd = socket(ld.ai->ai_family, ld.ai->ai_socktype | SOCK_CLOEXEC, ld.ai->ai_protocol);
	if (fd < 0) {
		fail(w, "socket: %s", strerror(errno));
		return -1;
	}
	if (connect(fd, ld.ai->ai_addr, ld.ai->ai_addrlen) < 0) {
		fail(w, "connect: %s", strerror(errno));
		(void)close(fd);
		return -1;
	}
	/* requests are single small writes: do not let Nagle hold one back */
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	(void)setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	(void)setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	return fd;
}

/* recv() that tells apart the server closing (0) and an error (-1, in w->err). */
static ssize_t recv_some(struct worker *w, int fd, char *buf, size_t sz)
{
	for (;;) {
		ssize_t n = recv(fd, buf, sz, 0);

		if (n > 0)
			return n;
		if (n == 0) {
			fail(w, "the server closed the connection");
			return -1;
		}
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			fail(w, "no response for %d s", RECV_TIMEOUT_SEC);
		else
			fail(w, "recv: %s", strerror(errno));
		return -1;
	}
}

/*
 * The value of header name in the head (NUL-terminated, lines ending in
 * CRLF), or NULL. Names match without case (RFC 9110 §5.1).
 */
static const char *header_value(const char *head, const char *name)
{
	size_t name_len = strlen(name);
	const char *line = strstr(head, "\r\n");

	while (line) {
		line += 2;
		if (!strncasecmp(line, name, name_len) && line[name_len] == ':') {
			const char *v = line + name_len + 1;

			while (*v == ' ' || *v == '\t')
				v++;
			return v;
		}
		line = strstr(line, "\r\n");
	}
	return NULL;
}

/*
 * Reads one whole response; 0 when it was a 200. Nothing is pipelined, so
 * no byte past this response's body may be read: the body's pieces are read
 * with at most what is left of it, and only the head's read may take body
 * bytes with it, which are counted against Content-Length.
 */
static int read_response(struct worker *w, int fd, char *buf)
{
	size_t len = 0, head_sz;
	unsigned long long body_sz, have;
	const char *cl;
	char *end, *eoh;
	int status;

	for (;;) {
		ssize_t n;

		if (len == RESP_BUF_SZ - 1) {
			fail(w, "a response head longer than %d bytes", RESP_BUF_SZ - 1);
			return -1;
		}
		n = recv_some(w, fd, buf + len, RESP_BUF_SZ - 1 - len);
		if (n < 0)
			return -1;
		len += (size_t)n;
		buf[len] = '\0';
		/* a body could hold a NUL, but it never comes before the head's end */
		eoh = strstr(buf, "\r\n\r\n");
		if (eoh)
			break;
	}
	head_sz = (size_t)(eoh - buf) + 4;
	eoh[2] = '\0'; /* the head's last CRLF stays, header_value() looks for it */

	if (sscanf(buf, "HTTP/1.%*1[01] %3d", &status) != 1) {
		fail(w, "not an HTTP/1.x response: %.40s", buf);
		return -1;
	}
	if (status != 200) {
		fail(w, "status %d", status);
		return -1;
	}
	cl = header_value(buf, "Content-Length");
	if (!cl) {
		fail(w, "a response without Content-Length");
		return -1;
	}
	errno = 0;
	body_sz = strtoull(cl, &end, 10);
	if (errno || end == cl || (*end != '\r' && *end != ' ' && *end != '\t')) {
		fail(w, "a bad Content-Length: %.20s", cl);
		return -1;
	}
	have = len - head_sz;
	if (have > body_sz) {
		fail(w, "%llu bytes more than Content-Length", have - body_sz);
		return -1;
	}
	while (have < body_sz) {
		unsigned long long left = body_sz - have;
		ssize_t n = recv_some(w, fd, buf, left < RESP_BUF_SZ ? (size_t)left : RESP_BUF_SZ);

		if (n < 0)
			return -1;
		have += (unsigned long long)n;
	}
	return 0;
}

static int send_request(struct worker *w, int fd)
{
	const char *p = ld.req;
	size_t left = ld.req_len;

	while (left) {
		ssize_t n = send(fd, p, left, MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			fail(w, "send: %s", strerror(errno));
			return -1;
		}
		p += n;
		left -= (size_t)n;
	}
	return 0;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	char *buf = malloc(RESP_BUF_SZ);
	int fd = -1;

	if (!buf)
		fail(w, "out of memory");
	else
		fd = connect_server(w);
	/* every worker waits, failed or not, so that main is never left waiting */
	pthread_barrier_wait(&ld.ready);
	if (fd >= 0) {
		while (!atomic_load_explicit(&ld.stop, memory_order_relaxed)) {
			if (send_request(w, fd) < 0 || read_response(w, fd, buf) < 0)
				break;
			w->done++;
		}
		(void)close(fd);
	}
	free(buf);
	return NULL;
}

static double now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * Sleeps until the monotonic time deadline, or until a worker fails: the
 * run is then cut short, and its time is what it took.
 */
static void wait_until(double deadline)
{
	struct timespec ts = {
		.tv_sec = (time_t)deadline,
		.tv_nsec = (long)((deadline - (double)(time_t)deadline) * 1e9),
	};

	pthread_mutex_lock(&ld.lock);
	/* the flag is set before the signal, under the lock: no wake-up is lost */
	while (!atomic_load_explicit(&ld.stop, memory_order_relaxed))
		if (pthread_cond_timedwait(&ld.failed, &ld.lock, &ts) == ETIMEDOUT)
			break;
	pthread_mutex_unlock(&ld.lock);
}

static void usage(void)
{
	fprintf(stderr, "usage: load ADDR:PORT SECONDS CONNECTIONS PATH\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM };
	struct worker *workers;
	char host[256], *colon, *end;
	const char *port, *errmsg = NULL;
	unsigned long done = 0;
	long conn_cnt;
	double secs, t0, elapsed;
	pthread_condattr_t cattr;
	int err, n;

	if (argc != 5)
		usage();
	secs = strtod(argv[2], &end);
	if (*end || end == argv[2] || !(secs > 0))
		usage();
	conn_cnt = strtol(argv[3], &end, 10);
	if (*end || end == argv[3] || conn_cnt < 1 || conn_cnt > MAX_CONNS)
		usage();

	/* ADDR:PORT, ADDR possibly a bracketed IPv6 address */
	colon = strrchr(argv[1], ':');
	if (!colon || colon == argv[1] || (size_t)(colon - argv[1]) >= sizeof(host))
		usage();
	memcpy(host, argv[1], (size_t)(colon - argv[1]));
	host[colon - argv[1]] = '\0';
	port = colon + 1;
	if (host[0] == '[' && host[strlen(host) - 1] == ']') {
		memmove(host, host + 1, strlen(host) - 2);
		host[strlen(host) - 2] = '\0';
	}
	err = getaddrinfo(host, port, &hints, &ld.ai);
	if (err) {
		fprintf(stderr, "load: %s: %s\n", argv[1], gai_strerror(err));
		return 1;
	}
	n = snprintf(ld.req, sizeof(ld.req), "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", argv[4],
		     argv[1]);
	if (n < 0 || (size_t)n >= sizeof(ld.req))
		usage();
	ld.req_len = (size_t)n;

	/* the deadline is CLOCK_MONOTONIC's, which a clock change leaves alone */
	if (pthread_condattr_init(&cattr) || pthread_condattr_setclock(&cattr, CLOCK_MONOTONIC) ||
	    pthread_cond_init(&ld.failed, &cattr)) {
		fprintf(stderr, "load: cannot set up a monotonic condition variable\n");
		return 1;
	}
	workers = calloc((size_t)conn_cnt, sizeof(*workers));
	if (!workers || pthread_barrier_init(&ld.ready, NULL, (unsigned)conn_cnt + 1)) {
		fprintf(stderr, "load: out of memory\n");
		return 1;
	}
	for (long i = 0; i < conn_cnt; i++) {
		err = pthread_create(&workers[i].tid, NULL, worker_main, &workers[i]);
		if (err) {
			/* the barrier counts on every worker: nothing sensible is left to do */
			fprintf(stderr, "load: pthread_create: %s\n", strerror(err));
			exit(1);
		}
	}
	pthread_barrier_wait(&ld.ready);
	t0 = now_sec();
	wait_until(t0 + secs);
	atomic_store_explicit(&ld.stop, true, memory_order_relaxed);
	for (long i = 0; i < conn_cnt; i++) {
		pthread_join(workers[i].tid, NULL);
		done += workers[i].done;
		if (!errmsg && workers[i].err[0])
			errmsg = workers[i].err;
	}
	elapsed = now_sec() - t0;

	printf("requests %lu seconds %.3f rps %.1f\n", done, elapsed, (double)done / elapsed);
	if (fflush(stdout) == EOF) {
		perror("load: stdout");
		return 1;
	}
	if (errmsg) {
		fprintf(stderr, "load: %s\n", errmsg);
		return 1;
	}
	freeaddrinfo(ld.ai);
	free(workers);
	return 0;
}
