/* SPDX-License-Identifier: MIT */
/*
 * util: small helpers shared by the udtrace tools (dlang, dtrace -h, dtrace
 * -G, the dtrace command). It owns checked allocation, a growable string
 * buffer, output files that appear complete or not at all, the parsing of
 * sizes and times, and the monotonic clock. It never includes another room
 * (docs/layout.md): everything else may use it, but for the runtime and the
 * D machine, which run in the target and do not link it.
 *
 * The tools treat running out of memory as fatal (a message and exit 1, the
 * output file never half-written); the runtime does not use this library.
 */
#ifndef UDT_UTIL_H
#define UDT_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define UDT__ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

void *udt__xmalloc(size_t sz);
void *udt__xcalloc(size_t cnt, size_t sz);
char *udt__xstrdup(const char *s);
char *udt__xstrndup(const char *s, size_t len);
char *udt__xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * udt__reallocarray() - grow an array, checking cnt * sz for overflow.
 * Returns the new array, or NULL (with the old one untouched) on overflow or
 * when memory is short.
 */
void *udt__reallocarray(void *ptr, size_t cnt, size_t sz);

/* Like udt__reallocarray(), but fatal on failure. */
void *udt__xreallocarray(void *ptr, size_t cnt, size_t sz);

/*
 * UDT__PUSH(arr, cnt, cap, value) - append value to a growable array whose
 * element count and capacity are the size_t lvalues cnt and cap.
 */
#define UDT__PUSH(arr, cnt, cap, value)                                              \
	do {                                                                         \
		if ((cnt) == (cap)) {                                                \
			(cap) = (cap) ? 2 * (cap) : 8;                               \
			(arr) = udt__xreallocarray((arr), (cap), sizeof(*(arr)));    \
		}                                                                    \
		(arr)[(cnt)++] = (value);                                            \
	} while (0)

/* A growable, always NUL-terminated string. Zero-initialise to start. */
struct udt_strbuf {
	char *buf;
	size_t len;
	size_t cap;
};

void udt__sb_putc(struct udt_strbuf *sb, char c);
void udt__sb_puts(struct udt_strbuf *sb, const char *s);
void udt__sb_putn(struct udt_strbuf *sb, const void *p, size_t n);
void udt__sb_printf(struct udt_strbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void udt__sb_vprintf(struct udt_strbuf *sb, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
/* The contents (never NULL); valid until the next change to sb. */
const char *udt__sb_str(const struct udt_strbuf *sb);
/* Hand the string to the caller (free() it) and reset sb. */
char *udt__sb_take(struct udt_strbuf *sb);
void udt__sb_reset(struct udt_strbuf *sb);

/* Parse "4m", "64k", "2g" into bytes. 0, or -1 when invalid. */
int udt__parse_size(const char *s, uint64_t *ret);

/* Parse a time or a rate ("1hz", "50ms", "10sec", "5000"). 0, or -1 when invalid. */
int udt__parse_time(const char *s, bool bare_is_hz, uint64_t *ret_ns);

/* CLOCK_MONOTONIC, in ns. */
uint64_t udt__now_ns(void);

/*
 * tscclock.c: a (TSC, CLOCK_MONOTONIC) pair, and the calibration with which the
 * runtime reads the TSC for the clock (the consumer measures it, the runtime and
 * dtrace convert with it).
 */
struct udt_clock_pt {
	uint64_t tsc, ns;
	bool valid;                /* the TSC is usable and was read */
};

struct udt_clock_cal {
	uint64_t tsc_base, tsc_ns, tsc_mult; /* struct udt_control's fields; tsc_mult 0: none */
};

/* The first pair, if the TSC may be used; the calibration from it (waits until 10 ms after). */
void udt__clock_start(struct udt_clock_pt *a);
void udt__clock_finish(const struct udt_clock_pt *a, struct udt_clock_cal *cal);
/* The runtime's clock reading (a record's timestamp) in ns of CLOCK_MONOTONIC, and back. */
uint64_t udt__clock_ns(const struct udt_clock_cal *cal, uint64_t reading);
uint64_t udt__clock_reading(const struct udt_clock_cal *cal, uint64_t ns);

/*
 * futexfd.c: a futex word of shared memory as a descriptor that a wake of it
 * makes readable (read it to rearm), until closed (before the memory goes).
 * NULL if no thread or eventfd could be had.
 */
struct udt_futexfd;
struct udt_futexfd *udt__futexfd_open(uint32_t *word);
int udt__futexfd_fd(const struct udt_futexfd *f);
void udt__futexfd_close(struct udt_futexfd *f);

/* "dtrace: <message>" on stderr. */
void udt__vwarn(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

/* Fatal error for the tools: "dtrace: <message>" on stderr, exit 1. */
_Noreturn void udt__die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The program name used in messages ("dtrace"). */
extern const char *udt__progname;

/*
 * An output file written atomically: the data goes to an unnamed file
 * (O_TMPFILE) in the target's directory, or to a unique hidden temporary
 * beside it where O_TMPFILE is unsupported, and only udt__outfile_commit()
 * gives it the target's name (by rename, so make never sees a truncated file).
 * A path that is not a regular file is never replaced: a symbolic link is
 * followed and the file it names written, a device, FIFO or socket receives
 * the complete output at commit, a directory is refused (-EISDIR) at open.
 * udt__outfile_abort() removes every trace of it. Signals are not handled
 * here: an unnamed file vanishes by itself when the process dies.
 */
struct udt_outfile {
	int fd;        /* seekable: libelf writes with pwrite */
	char *path;    /* final name, symbolic links resolved */
	char *tmpname; /* named temporary (fallback only), else NULL */
	bool special;  /* path is a device, FIFO or socket: written into at commit */
};

/* Returns 0, or a negative errno. */
int udt__outfile_open(struct udt_outfile *of, const char *path);
/* Write all of buf. Returns 0, or a negative errno. */
int udt__outfile_write(struct udt_outfile *of, const void *buf, size_t sz);
/* fsync-free commit: link/rename into place (or write into a special file), close.
 * Returns 0 or -errno. */
int udt__outfile_commit(struct udt_outfile *of);
/* Discard the output. Safe after a failed open and after commit. */
void udt__outfile_abort(struct udt_outfile *of);

/* Read a whole file into memory (NUL-terminated). Returns 0 or -errno. */
int udt__read_file(const char *path, char **ret_buf, size_t *ret_sz);

struct stat;
/*
 * Open path (flags: O_RDONLY or O_RDWR) only if it is a regular file: it is
 * looked at through an O_PATH descriptor first, so that a device or a FIFO
 * a traced process put there (or a /proc link to one) is never opened, and
 * reopened only if regular. *ret_st (if not NULL) gets its stat. The
 * descriptor (close-on-exec), or -errno (-EINVAL: not a regular file).
 */
int udt__open_regular(const char *path, int flags, struct stat *ret_st);

#endif /* UDT_UTIL_H */
