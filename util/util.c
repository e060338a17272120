/* SPDX-License-Identifier: MIT */
/* Checked allocation, string buffers and fatal errors for the udtrace tools. */
#include "util/util.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char *udt__progname = "dtrace";

void udt__vwarn(const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", udt__progname);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

_Noreturn void udt__die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	udt__vwarn(fmt, ap);
	va_end(ap);
	exit(1);
}

static void *check(void *p)
{
	if (!p)
		udt__die("out of memory");
	return p;
}

void *udt__xmalloc(size_t sz)
{
	return check(malloc(sz ? sz : 1));
}

void *udt__xcalloc(size_t cnt, size_t sz)
{
	return check(calloc(cnt ? cnt : 1, sz ? sz : 1));
}

char *udt__xstrdup(const char *s)
{
	return check(strdup(s));
}

char *udt__xstrndup(const char *s, size_t len)
{
	return check(strndup(s, len));
}

char *udt__xasprintf(const char *fmt, ...)
{
	struct udt_strbuf sb = { 0 };
	va_list ap;

	va_start(ap, fmt);
	udt__sb_vprintf(&sb, fmt, ap);
	va_end(ap);
	return udt__sb_take(&sb);
}

void *udt__reallocarray(void *ptr, size_t cnt, size_t sz)
{
	if (sz && cnt > SIZE_MAX / sz) {
		errno = ENOMEM;
		return NULL;
	}
	return realloc(ptr, cnt * sz != 0 ? cnt * sz : 1);
}

void *udt__xreallocarray(void *ptr, size_t cnt, size_t sz)
{
	return check(udt__reallocarray(ptr, cnt, sz));
}

static void sb_reserve(struct udt_strbuf *sb, size_t more)
{
	size_t need = sb->len + more + 1;

	if (need < sb->len)
		udt__die("out of memory");
	if (need <= sb->cap)
		return;
	size_t cap = sb->cap ? sb->cap : 64;
	while (cap < need)
		cap *= 2;
	sb->buf = udt__xreallocarray(sb->buf, cap, 1);
	sb->cap = cap;
}

void udt__sb_putn(struct udt_strbuf *sb, const void *p, size_t n)
{
	sb_reserve(sb, n);
	memcpy(sb->buf + sb->len, p, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void udt__sb_putc(struct udt_strbuf *sb, char c)
{
	udt__sb_putn(sb, &c, 1);
}

void udt__sb_puts(struct udt_strbuf *sb, const char *s)
{
	udt__sb_putn(sb, s, strlen(s));
}

void udt__sb_vprintf(struct udt_strbuf *sb, const char *fmt, va_list ap)
{
	va_list aq;
	int n;

	va_copy(aq, ap);
	n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n < 0)
		udt__die("bad format string");
	sb_reserve(sb, (size_t)n);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	sb->len += (size_t)n;
}

void udt__sb_printf(struct udt_strbuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	udt__sb_vprintf(sb, fmt, ap);
	va_end(ap);
}

const char *udt__sb_str(const struct udt_strbuf *sb)
{
	return sb->buf ? sb->buf : "";
}

char *udt__sb_take(struct udt_strbuf *sb)
{
	char *s = sb->buf ? sb->buf : udt__xstrdup("");

	sb->buf = NULL;
	sb->len = sb->cap = 0;
	return s;
}

void udt__sb_reset(struct udt_strbuf *sb)
{
	free(sb->buf);
	sb->buf = NULL;
	sb->len = sb->cap = 0;
}

uint64_t udt__now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int udt__parse_size(const char *s, uint64_t *ret)
{
	char *end;
	uint64_t v, mul = 1;

	if (!s || !isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno)
		return -1;
	switch (tolower((unsigned char)*end)) {
	case 't': mul <<= 10; /* fall through */
	case 'g': mul <<= 10; /* fall through */
	case 'm': mul <<= 10; /* fall through */
	case 'k': mul <<= 10; end++; break;
	case '\0': break;
	default: return -1;
	}
	if (*end || (v && mul > UINT64_MAX / v))
		return -1;
	*ret = v * mul;
	return 0;
}

int udt__parse_time(const char *s, bool bare_is_hz, uint64_t *ret_ns)
{
	static const struct {
		const char *sfx;
		uint64_t ns;          /* 0: a frequency */
	} units[] = {
		{ "nsec", 1 }, { "ns", 1 }, { "usec", 1000 }, { "us", 1000 },
		{ "msec", 1000000 }, { "ms", 1000000 }, { "sec", 1000000000ull },
		{ "s", 1000000000ull }, { "min", 60000000000ull }, { "m", 60000000000ull },
		{ "hour", 3600000000000ull }, { "h", 3600000000000ull },
		{ "day", 86400000000000ull }, { "d", 86400000000000ull }, { "hz", 0 },
	};
	char *end;
	uint64_t v;

	if (!s || !isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	if (!*end) {
		if (bare_is_hz) {
			if (!v)
				return -1;
			*ret_ns = 1000000000ull / v;
		} else {
			*ret_ns = v;
		}
		return 0;
	}
	for (size_t i = 0; i < UDT__ARRAY_SIZE(units); i++) {
		if (strcasecmp(end, units[i].sfx))
			continue;
		if (!units[i].ns) {
			if (!v)
				return -1;
			*ret_ns = 1000000000ull / v;
		} else {
			if (v > UINT64_MAX / units[i].ns)
				return -1;
			*ret_ns = v * units[i].ns;
		}
		return *ret_ns ? 0 : -1;
	}
	return -1;
}
