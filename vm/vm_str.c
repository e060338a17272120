/* SPDX-License-Identifier: MIT */
/*
 * D strings at fire time: string variables, the scratch space and the
 * subroutines (strlen, strjoin, substr, index, rindex, strchr, strrchr,
 * strstr, strtok, basename, dirname, lltostr, toupper, tolower, strtoll,
 * copyin, copyinto, copyinstr, alloca, bcopy, cleanpath, copyout,
 * copyoutstr, and the network addresses' of vm_net.c), with DTrace's semantics
 * (its dtrace_dif_subr() is the reference; docs/bytecode.md §3.11).
 *
 * A string is an address and at most strsize - 1 bytes before its NUL.
 * Where it is decides how it is read (struct udt_vm_mem): in memory the
 * runtime owns (the DIFO's string table, the thread's variables and
 * scratch, the global strings, the dynamic variables, the enabling area)
 * it is read in place, never past the end of that memory; anywhere else it
 * is the process's, and it is copied into the scratch space with
 * fault-safe copies (udt__safe_copy), a page at a time, stopping at its
 * NUL: an address that cannot be read is a fault (BADADDR, with the
 * address), never a crash. Subroutines then work on (bytes, length) pairs.
 *
 * The scratch space is the fire's: a thread's own memory in the shared
 * memory, taken from the bottom up and given back at the start of every
 * clause (as DTrace resets its scratch for every ECB). A result that does
 * not fit is UDT_FAULT_NOSCRATCH ("out of scratch space"); a string that
 * does not fit in strsize bytes where DTrace faults (strjoin) faults the
 * same way, elsewhere it is cut at strsize - 1 as in DTrace.
 *
 * Async-signal-safe: no allocation, no lock; the only system call is the
 * fault-safe copy.
 */
#include "vm/vm_mem.h"
#include "vm/safe.h"

#include <errno.h>
#include <string.h>

/* n bytes of string at s, not necessarily followed by a NUL. */
struct str {
	const char *s;
	uint64_t n;
};

static bool in_region(const void *p, uint64_t sz, uint64_t addr, uint64_t *avail)
{
	uint64_t base = (uint64_t)(uintptr_t)p;

	if (!p || addr < base || addr - base >= sz)
		return false;
	*avail = sz - (addr - base);
	return true;
}

static const char *strtab_of(const struct udt_difo *d)
{
	return (const char *)d + d->size + (uint64_t)d->insn_cnt * sizeof(struct udt_insn) +
	       (uint64_t)d->const_cnt * 8;
}

/* Does the runtime own addr (then *avail bytes of it may be read in place)? */
static bool owned(const struct udt_vm_mem *m, const struct udt_difo *d, uint64_t addr,
		  uint64_t *avail)
{
	if (d && in_region(strtab_of(d), d->str_sz, addr, avail))
		return true;
	for (unsigned i = 0; m && i < m->nown; i++)
		if (in_region(m->own[i].p, m->own[i].sz, addr, avail))
			return true;
	return false;
}

/* sz bytes of scratch aligned to align, or NULL when it is full. */
static void *scratch_take(struct udt_vm_mem *m, uint64_t sz, uint64_t align)
{
	uint64_t at = (m->scratch_used + align - 1) & ~(align - 1);

	if (at < m->scratch_used || at > m->scratch_sz || sz > m->scratch_sz - at)
		return NULL;
	m->scratch_used = at + sz;
	return m->scratch + at;
}

/*
 * Copy the process's string at src into dst (lim + 1 bytes): at most lim
 * bytes and a NUL, and nothing after them. *ret_n is its length. -EFAULT
 * with *bad the first address that could not be read (a page at a time:
 * the string may end just before a hole).
 */
static int copy_in(uint64_t src, char *dst, uint64_t lim, uint64_t *ret_n, uint64_t *bad)
{
	long n = udt__safe_strcpy(dst, src, lim + 1, bad);

	if (n < 0)
		return -EFAULT;
	*ret_n = (uint64_t)n;
	return 0;
}

/*
 * The string at addr, at most strsize - 1 bytes (and at most max when not
 * 0): in place when the runtime owns it, else copied into the scratch space.
 */
static uint32_t str_get(struct udt_vm_mem *m, const struct udt_difo *d, uint64_t addr,
			uint64_t max, struct str *ret, uint64_t *bad)
{
	uint64_t lim = m->strsize ? m->strsize - 1 : 0, avail, n;

	if (max && max < lim)
		lim = max;
	if (owned(m, d, addr, &avail)) {
		const char *s = (const char *)(uintptr_t)addr;
		*ret = (struct str){ s, strnlen(s, avail < lim ? avail : lim) };
		return 0;
	}
	uint64_t mark = m->scratch_used;
	char *dst = scratch_take(m, lim + 1, 1);
	if (!dst)
		return UDT_FAULT_NOSCRATCH;
	if (copy_in(addr, dst, lim, &n, bad)) {
		m->scratch_used = mark;
		return UDT_FAULT_BADADDR;
	}
	dst[n] = '\0';
	m->scratch_used = mark + n + 1; /* what the string did not use goes back */
	*ret = (struct str){ dst, n };
	return 0;
}

/* A new string of n bytes (and its NUL) in the scratch space, or NULL. */
static char *str_new(struct udt_vm_mem *m, uint64_t n)
{
	char *s = scratch_take(m, n + 1, 1);

	if (s)
		s[n] = '\0';
	return s;
}

static uint64_t addr_of(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}

uint32_t udt__vm_str_key(struct udt_vm_ctx *ctx, const struct udt_difo *d, uint64_t addr,
			 uint8_t *dst, uint32_t size, uint64_t *bad)
{
	struct udt_vm_mem *m = ctx->mem;
	uint64_t mark = m->scratch_used;
	struct str s;
	uint32_t f = str_get(m, d, addr, size - 1, &s, bad);

	if (f)
		return f;
	memmove(dst, s.s, s.n);
	memset(dst + s.n, 0, size - s.n);
	m->scratch_used = mark;
	return 0;
}

/*
 * The string at s, of the runtime's memory (avail bytes readable from s),
 * at most lim bytes of it, into dst: its bytes, its NUL and zeros to the
 * next multiple of 8, a word at a time where they are whole words (what
 * reads dst next, an aggregation's hash, then finds each word stored whole:
 * no load waits on bytes stored one at a time). Its length.
 */
static uint64_t own_copy(uint8_t *dst, const char *s, uint64_t avail, uint64_t lim)
{
	const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
	uint64_t L = avail < lim ? avail : lim, i = 0, w;

	for (; i + 8 <= L; i += 8) {
		memcpy(&w, s + i, 8);
		if ((w - ones) & ~w & highs)
			break;
		memcpy(dst + i, &w, 8);
	}
	if (i + 8 <= avail) {
		/* the last word: read whole, cut at the NUL or at L */
		uint64_t n = i + strnlen(s + i, L - i < 8 ? L - i : 8), keep = (n - i) * 8;
		memcpy(&w, s + i, 8);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		w = keep ? w & (~0ull >> (64 - keep)) : 0;
#else
		w = keep ? w & (~0ull << (64 - keep)) : 0;
#endif
		memcpy(dst + i, &w, 8);
		return n;
	}
	uint64_t n = i + strnlen(s + i, L - i);
	memcpy(dst + i, s + i, n - i);
	dst[n] = '\0';
	return n;
}

long udt__vm_str_out(const struct udt_vm_mem *m, uint64_t src, uint8_t *dst, uint32_t size,
		     uint64_t *bad)
{
	uint64_t avail, n = 0;

	if (!size)
		return 0;
	if (owned(m, NULL, src, &avail))
		n = own_copy(dst, (const char *)(uintptr_t)src, avail, size - 1);
	else if (copy_in(src, (char *)dst, size - 1, &n, bad))
		return -EFAULT;
	return (long)n;
}

/*
 * strcmp() of the strings at a and b without a scratch space (a session
 * with no string variables): read fault-safe a chunk at a time (never
 * across a page, where a string may end before a hole) into small buffers,
 * as this may run on a signal handler's stack.
 */
static uint32_t strcmp_chunked(uint64_t a, uint64_t b, uint64_t max_a, uint64_t max_b, int *ret,
			       uint64_t *bad)
{
	unsigned char x[64], y[64];

	for (uint64_t n = 0; n < UDT_STRCMP_MAX;) {
		uint64_t ca = 4096 - ((a + n) & 4095), cb = 4096 - ((b + n) & 4095), c = sizeof(x);
		if (ca < c)
			c = ca;
		if (cb < c)
			c = cb;
		if (c > UDT_STRCMP_MAX - n)
			c = UDT_STRCMP_MAX - n;
		/* DTrace compares NULL as "" */
		if (!a)
			memset(x, 0, c);
		else if (udt__safe_copy(x, a + n, c)) {
			*bad = a + n;
			return UDT_FAULT_BADADDR;
		}
		if (!b)
			memset(y, 0, c);
		else if (udt__safe_copy(y, b + n, c)) {
			*bad = b + n;
			return UDT_FAULT_BADADDR;
		}
		for (uint64_t i = 0; i < c; i++) {
			/* a char array ends at its size, as if a NUL followed */
			if (n + i >= max_a)
				x[i] = 0;
			if (n + i >= max_b)
				y[i] = 0;
			if (x[i] != y[i]) {
				*ret = x[i] < y[i] ? -1 : 1;
				return 0;
			}
			if (!x[i]) {
				*ret = 0;
				return 0;
			}
		}
		n += c;
	}
	*ret = 0;
	return 0;
}

uint32_t udt__vm_strcmp(struct udt_vm_ctx *ctx, const struct udt_difo *d, uint64_t a,
			uint64_t b, uint64_t max_a, uint64_t max_b, int *ret, uint64_t *bad)
{
	struct udt_vm_mem *m = ctx->mem;
	struct str x = { "", 0 }, y = { "", 0 };
	uint32_t f = 0;

	*bad = 0;
	if (!m)
		return strcmp_chunked(a, b, max_a, max_b, ret, bad);
	uint64_t mark = m->scratch_used;
	/* DTrace compares NULL as "" */
	if (a)
		f = str_get(m, d, a, max_a, &x, bad);
	if (!f && b)
		f = str_get(m, d, b, max_b, &y, bad);
	m->scratch_used = mark;
	if (f)
		return f;
	uint64_t n = x.n < y.n ? x.n : y.n;
	int c = memcmp(x.s, y.s, n);
	if (!c)
		c = x.n < y.n ? -1 : x.n > y.n;
	*ret = c < 0 ? -1 : c > 0;
	return 0;
}

/* -- String variables ----------------------------------------------------------------- */

uint32_t udt__vm_strvar(struct udt_vm_ctx *ctx, const struct udt_difo *d, uint8_t op,
			uint32_t idx, uint64_t *reg, uint64_t *bad)
{
	struct udt_vm_mem *m = ctx->mem;
	uint8_t *base;
	uint32_t cnt;

	*bad = 0;
	if (!m)
		return UDT_FAULT_BADVAR;
	switch (op) {
	case UDT_OP_LDTS:
	case UDT_OP_STTS:
		base = m->tstrs;
		cnt = m->ntstrs;
		break;
	case UDT_OP_LDLS:
	case UDT_OP_STLS:
		base = m->lstrs;
		cnt = m->nlstrs;
		break;
	default:
		base = m->gstrs;
		cnt = m->ngstrs;
		break;
	}
	if (idx >= cnt || !base)
		return UDT_FAULT_BADVAR;
	uint8_t *slot = base + (uint64_t)idx * m->slot_sz;
	uint64_t *set = (uint64_t *)(void *)slot;
	if (op == UDT_OP_LDTS || op == UDT_OP_LDLS || op == UDT_OP_LDGS) {
		*reg = __atomic_load_n(set, __ATOMIC_ACQUIRE) ? addr_of(slot + 8) : 0;
		return 0;
	}
	if (!*reg) {
		__atomic_store_n(set, 0, __ATOMIC_RELEASE); /* NULL: unset */
		return 0;
	}
	/* a copy, as D assigns strings; the source may be this very slot */
	uint64_t mark = m->scratch_used;
	struct str s;
	uint32_t f = str_get(m, d, *reg, 0, &s, bad);
	if (f)
		return f;
	memmove(slot + 8, s.s, s.n);
	slot[8 + s.n] = '\0';
	m->scratch_used = mark;
	/* pairs with the acquire of a load: the bytes before the mark */
	__atomic_store_n(set, 1, __ATOMIC_RELEASE);
	return 0;
}

/* -- Subroutines --------------------------------------------------------------------------- */

static const struct {
	uint8_t min, max;
} subr_args[UDT_CALL_CNT] = {
	[UDT_CALL_STRLEN] = { 1, 1 },   [UDT_CALL_STRJOIN] = { 2, 2 },
	[UDT_CALL_SUBSTR] = { 2, 3 },   [UDT_CALL_INDEX] = { 2, 3 },
	[UDT_CALL_RINDEX] = { 2, 3 },   [UDT_CALL_STRCHR] = { 2, 2 },
	[UDT_CALL_STRRCHR] = { 2, 2 },  [UDT_CALL_STRSTR] = { 2, 2 },
	[UDT_CALL_STRTOK] = { 2, 2 },   [UDT_CALL_BASENAME] = { 1, 1 },
	[UDT_CALL_DIRNAME] = { 1, 1 },  [UDT_CALL_LLTOSTR] = { 1, 2 },
	[UDT_CALL_TOUPPER] = { 1, 1 },  [UDT_CALL_TOLOWER] = { 1, 1 },
	[UDT_CALL_COPYIN] = { 2, 2 },   [UDT_CALL_COPYINTO] = { 3, 3 },
	[UDT_CALL_COPYINSTR] = { 1, 2 }, [UDT_CALL_ALLOCA] = { 1, 1 },
	[UDT_CALL_BCOPY] = { 3, 3 },    [UDT_CALL_STRTOLL] = { 1, 2 },
	[UDT_CALL_CLEANPATH] = { 1, 1 },
	[UDT_CALL_COPYOUT] = { 3, 3 },  [UDT_CALL_COPYOUTSTR] = { 3, 3 },
	[UDT_CALL_INET_NTOA] = { 1, 1 }, [UDT_CALL_INET_NTOA6] = { 1, 2 },
	[UDT_CALL_INET_NTOP] = { 2, 2 }, [UDT_CALL_LINK_NTOP] = { 2, 2 },
};

void udt__vm_call_args(uint32_t subr, uint32_t *ret_min, uint32_t *ret_max)
{
	*ret_min = subr < UDT_CALL_CNT ? subr_args[subr].min : 1;
	*ret_max = subr < UDT_CALL_CNT ? subr_args[subr].max : 0;
}

/* Is [addr, addr + size) inside the sz bytes at base? */
int udt__vm_mem_in(const struct udt_vm_mem *m, uint64_t src, uint8_t *dst, uint64_t size,
		  uint64_t *bad)
{
	uint64_t avail, n = 0;

	if (owned(m, NULL, src, &avail) && avail >= size) {
		memmove(dst, (const void *)(uintptr_t)src, size);
		return 0;
	}
	/* a page at a time, so that a fault names the first page that cannot be read */
	while (n < size) {
		uint64_t chunk = 4096 - ((src + n) & 4095);
		if (chunk > size - n)
			chunk = size - n;
		if (udt__safe_copy(dst + n, src + n, chunk)) {
			*bad = src + n;
			return -EFAULT;
		}
		n += chunk;
	}
	return 0;
}

/* index(), rindex() and strstr(): DTrace's (Perl's) rules, position argument included. */
static uint64_t find_sub(uint32_t subr, struct str s, struct str sub, bool has_pos, int64_t pos)
{
	int64_t notfound = subr == UDT_CALL_STRSTR ? 0 : -1;
	int64_t len = (int64_t)s.n, sublen = (int64_t)sub.n, at, end, inc = 1;

	if (!sublen && !len)
		return subr == UDT_CALL_STRSTR ? addr_of(s.s) : 0;
	at = 0;
	end = len;
	if (subr == UDT_CALL_RINDEX) {
		at = len;
		end = -1;
		inc = -1;
	}
	if (subr != UDT_CALL_STRSTR && has_pos) {
		if (subr == UDT_CALL_RINDEX) {
			if (pos < 0)
				return sublen ? (uint64_t)-1 : 0;
			if (pos > len)
				pos = len;
		} else {
			if (pos < 0)
				pos = 0;
			if (pos >= len)
				return sublen ? (uint64_t)-1 : (uint64_t)len;
		}
		at = pos;
	}
	for (; at != end; at += inc) {
		if (at + sublen <= len && !memcmp(s.s + at, sub.s, (size_t)sublen))
			return subr == UDT_CALL_STRSTR ? addr_of(s.s + at) : (uint64_t)at;
	}
	return (uint64_t)notfound;
}

/* substr(s, index[, length]), as DTrace computes it. */
static uint32_t substr(struct udt_vm_mem *m, struct str s, int64_t index, int64_t remaining,
		       bool has_len, uint64_t *ret)
{
	int64_t size = m->strsize, len = (int64_t)s.n;

	if (!has_len)
		remaining = size;
	if (index < 0) {
		index += len;
		if (index < 0 && index + remaining > 0) {
			remaining += index;
			index = 0;
		}
	}
	if (index >= len || index < 0)
		remaining = 0;
	else if (remaining < 0)
		remaining += len - index;
	else if (index + remaining > size)
		remaining = size - index;
	if (remaining < 0)
		remaining = 0;
	if (index >= 0 && index < len && remaining > len - index)
		remaining = len - index; /* (DTrace stops at the NUL) */
	char *d = str_new(m, (uint64_t)remaining);
	if (!d)
		return UDT_FAULT_NOSCRATCH;
	if (remaining)
		memcpy(d, s.s + index, (size_t)remaining);
	*ret = addr_of(d);
	return 0;
}

/* basename() and dirname(), as DTrace cuts a path. */
/*
 * cleanpath(): s without empty and "." components, each ".." taken back with
 * the component before it (at the root, dropped), and no trailing slash:
 * "/foo/bar/../../baz/.//" is "/baz", "a/.." is ".", "" stays "".
 */
static uint32_t cleanpath(struct udt_vm_mem *m, struct str s, uint64_t *ret)
{
	bool rooted = s.n && s.s[0] == '/';
	char *d = str_new(m, s.n ? s.n : 0);
	uint64_t j = rooted, dots = j; /* d[0..j): the result; d[0..dots) ".." that stay */

	if (!d)
		return UDT_FAULT_NOSCRATCH;
	if (rooted)
		d[0] = '/';
	for (uint64_t i = 0; i < s.n;) {
		uint64_t k = i;
		while (k < s.n && s.s[k] != '/')
			k++;
		uint64_t len = k - i;
		if (len == 2 && s.s[i] == '.' && s.s[i + 1] == '.') {
			if (j > dots) {
				/* back over the last component, and its slash */
				while (j > dots && d[j - 1] != '/')
					j--;
				if (j > (uint64_t)rooted)
					j--;
			} else if (!rooted) {
				if (j)
					d[j++] = '/';
				d[j++] = '.';
				d[j++] = '.';
				dots = j;
			}
		} else if (len && !(len == 1 && s.s[i] == '.')) {
			if (j > (uint64_t)rooted)
				d[j++] = '/';
			memcpy(d + j, s.s + i, len);
			j += len;
		}
		i = k + 1;
	}
	if (!j && s.n)
		d[j++] = '.';
	d[j] = '\0';
	*ret = addr_of(d);
	return 0;
}

static uint32_t path_part(struct udt_vm_mem *m, struct str s, bool dir, uint64_t *ret)
{
	int64_t len = (int64_t)s.n, i, lastbase = -1, firstbase = -1, lastdir = -1, start, end;
	const char *src = s.s;

	if (!len) {
		src = ".";
		len = 1;
	}
	for (i = len - 1; i >= 0 && src[i] == '/'; i--)
		;
	if (i >= 0)
		lastbase = i;
	for (; i >= 0 && src[i] != '/'; i--)
		;
	if (i >= 0)
		firstbase = i + 1;
	for (; i >= 0 && src[i] == '/'; i--)
		;
	if (i >= 0)
		lastdir = i;
	if (lastbase == -1) /* only slashes: "/" either way */
		firstbase = lastbase = lastdir = 0;
	if (firstbase == -1) {
		/* a name alone: its dirname is "." */
		if (dir) {
			src = ".";
			lastdir = 0;
		} else {
			firstbase = 0;
		}
	}
	if (dir) {
		start = 0;
		end = lastdir == -1 ? 0 : lastdir; /* "/name": "/" */
	} else {
		start = firstbase;
		end = lastbase;
	}
	uint64_t n = (uint64_t)(end - start + 1);
	char *d = str_new(m, n);
	if (!d)
		return UDT_FAULT_NOSCRATCH;
	memcpy(d, src + start, n);
	*ret = addr_of(d);
	return 0;
}

/* lltostr(value[, base]): DTrace's digits and prefixes ("0x", "0" for octal). */
static uint32_t lltostr(struct udt_vm_mem *m, int64_t v, uint64_t base, uint64_t *ret)
{
	char buf[72], *end = buf + sizeof(buf) - 1;
	uint64_t val = base == 10 && v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;

	if (base < 2 || base > 36)
		return UDT_FAULT_ILLOP;
	*end = '\0';
	for (; val; val /= base) {
		uint64_t digit = val % base;
		*--end = (char)(digit <= 9 ? '0' + digit : 'a' + digit - 10);
	}
	if (v == 0 && base == 16)
		*--end = '0';
	if (base == 16)
		*--end = 'x';
	if (v == 0 || base == 8 || base == 16)
		*--end = '0';
	if (v < 0 && base == 10)
		*--end = '-';
	uint64_t n = (uint64_t)(buf + sizeof(buf) - 1 - end);
	char *d = str_new(m, n);
	if (!d)
		return UDT_FAULT_NOSCRATCH;
	memcpy(d, end, n);
	*ret = addr_of(d);
	return 0;
}

static int digit_of(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'Z')
		return c - 'A' + 10;
	return 99;
}

/* strtoll(s[, base]): blanks, a sign, "0x" in base 16, then digits, as DTrace reads them. */
static int64_t strtoll_of(struct str s, int base)
{
	uint64_t i = 0, val = 0;
	bool neg = false;

	while (i < s.n && (s.s[i] == ' ' || s.s[i] == '\t'))
		i++;
	if (i < s.n && (s.s[i] == '-' || s.s[i] == '+'))
		neg = s.s[i++] == '-';
	if (base == 16 && i + 2 < s.n && s.s[i] == '0' && (s.s[i + 1] == 'x' || s.s[i + 1] == 'X') &&
	    digit_of(s.s[i + 2]) < 16)
		i += 2;
	for (; i < s.n && digit_of(s.s[i]) < base; i++)
		val = val * (uint64_t)base + (uint64_t)digit_of(s.s[i]);
	return neg ? (int64_t)(0 - val) : (int64_t)val;
}

/* strtok(s, delimiters): tokens of s, or with s NULL of the string the last call left. */
static uint32_t strtok_of(struct udt_vm_ctx *ctx, const struct udt_difo *d, uint64_t addr,
			  uint64_t delims, uint64_t *ret, uint64_t *bad)
{
	struct udt_vm_mem *m = ctx->mem;
	uint8_t map[32] = { 0 };
	struct str s, t;
	uint32_t f = str_get(m, d, delims, 0, &t, bad);

	if (f)
		return f;
	for (uint64_t i = 0; i < t.n; i++)
		map[(uint8_t)t.s[i] >> 3] |= (uint8_t)(1u << ((uint8_t)t.s[i] & 7));
	if (!addr) {
		/* DTrace's saved position, of this fire; none reads address 0, as in DTrace */
		addr = m->strtok;
		if (!addr) {
			*bad = 0;
			return UDT_FAULT_BADADDR;
		}
	}
	f = str_get(m, d, addr, 0, &s, bad);
	if (f)
		return f;
	uint64_t i = 0;
	while (i < s.n && (map[(uint8_t)s.s[i] >> 3] >> ((uint8_t)s.s[i] & 7) & 1))
		i++;
	if (i == s.n) {
		*ret = 0;
		m->strtok = 0;
		return 0;
	}
	uint64_t start = i;
	while (i < s.n && !(map[(uint8_t)s.s[i] >> 3] >> ((uint8_t)s.s[i] & 7) & 1))
		i++;
	char *tok = str_new(m, i - start);
	if (!tok)
		return UDT_FAULT_NOSCRATCH;
	memcpy(tok, s.s + start, i - start);
	/* the next call starts at the delimiter; s is in memory we own (or a scratch copy) */
	m->strtok = addr_of(s.s + i);
	*ret = addr_of(tok);
	return 0;
}

/*
 * inet_ntoa(addr), inet_ntoa6(addr[, embed]), inet_ntop(af, addr) and
 * link_ntop(type, addr): the address's bytes read where they are (a fault
 * at the first that cannot be), its text (vm_net.c) new in the scratch
 * space, cut at strsize - 1; an address family or hardware type of none
 * of them is ILLOP, as in DTrace.
 */
static uint32_t net_text(struct udt_vm_mem *m, uint32_t subr, const uint64_t *args,
			 uint32_t argc, uint64_t *ret, uint64_t *bad)
{
	bool typed = subr == UDT_CALL_INET_NTOP || subr == UDT_CALL_LINK_NTOP;
	uint64_t kind = typed ? args[0] : 0;
	uint32_t size = udt__vm_net_size(subr, kind);
	uint8_t a[UDT_NET_ADDR_MAX];
	char text[UDT_NET_TEXT_MAX];
	char *dst;

	if (!size)
		return UDT_FAULT_ILLOP;
	if (udt__vm_mem_in(m, args[typed], a, size, bad))
		return UDT_FAULT_BADADDR;
	uint64_t n = udt__vm_net_text(subr, kind, !typed && argc > 1 && args[1], a, text);
	if (m->strsize && n > m->strsize - 1)
		n = m->strsize - 1;
	if (!(dst = str_new(m, n)))
		return UDT_FAULT_NOSCRATCH;
	memcpy(dst, text, n);
	*ret = addr_of(dst);
	return 0;
}

uint32_t udt__vm_call(struct udt_vm_ctx *ctx, const struct udt_difo *d, uint32_t subr,
		      const uint64_t *args, uint32_t argc, uint64_t *ret, uint64_t *bad)
{
	struct udt_vm_mem *m = ctx->mem;
	struct str a, b;
	uint32_t f;
	char *dst;

	*bad = 0;
	if (!m)
		return UDT_FAULT_NOSCRATCH; /* (a session whose consumer gave no scratch) */
	switch (subr) {
	case UDT_CALL_STRLEN:
		if ((f = str_get(m, d, args[0], 0, &a, bad)))
			return f;
		*ret = a.n;
		return 0;
	case UDT_CALL_STRJOIN:
		if ((f = str_get(m, d, args[0], 0, &a, bad)) ||
		    (f = str_get(m, d, args[1], 0, &b, bad)))
			return f;
		/* DTrace: a result longer than strsize - 1 is out of scratch space */
		if (a.n + b.n >= m->strsize || !(dst = str_new(m, a.n + b.n)))
			return UDT_FAULT_NOSCRATCH;
		memcpy(dst, a.s, a.n);
		memcpy(dst + a.n, b.s, b.n);
		*ret = addr_of(dst);
		return 0;
	case UDT_CALL_SUBSTR:
		if ((f = str_get(m, d, args[0], 0, &a, bad)))
			return f;
		return substr(m, a, (int64_t)args[1], argc > 2 ? (int64_t)args[2] : 0, argc > 2, ret);
	case UDT_CALL_INDEX:
	case UDT_CALL_RINDEX:
	case UDT_CALL_STRSTR:
		if ((f = str_get(m, d, args[0], 0, &a, bad)) ||
		    (f = str_get(m, d, args[1], 0, &b, bad)))
			return f;
		*ret = find_sub(subr, a, b, argc > 2, argc > 2 ? (int64_t)args[2] : 0);
		return 0;
	case UDT_CALL_STRCHR:
	case UDT_CALL_STRRCHR: {
		char c = (char)args[1];
		if ((f = str_get(m, d, args[0], 0, &a, bad)))
			return f;
		*ret = 0;
		/* the NUL too, as DTrace looks at it before it stops */
		for (uint64_t i = 0; i <= a.n; i++) {
			char x = i < a.n ? a.s[i] : '\0';
			if (x == c) {
				*ret = addr_of(a.s + i);
				if (subr == UDT_CALL_STRCHR)
					break;
			}
		}
		if (*ret == addr_of(a.s + a.n)) {
			/* the terminating NUL: "" in memory that surely has one */
			if (!(dst = str_new(m, 0)))
				return UDT_FAULT_NOSCRATCH;
			*ret = addr_of(dst);
		}
		return 0;
	}
	case UDT_CALL_STRTOK:
		return strtok_of(ctx, d, args[0], args[1], ret, bad);
	case UDT_CALL_BASENAME:
	case UDT_CALL_DIRNAME:
		if ((f = str_get(m, d, args[0], 0, &a, bad)))
			return f;
		return path_part(m, a, subr == UDT_CALL_DIRNAME, ret);
	case UDT_CALL_LLTOSTR:
		return lltostr(m, (int64_t)args[0], argc > 1 ? args[1] : 10, ret);
	case UDT_CALL_CLEANPATH:
		if ((f = str_get(m, d, args[0], 0, &a, bad)))
			return f;
		return cleanpath(m, a, ret);
	case UDT_CALL_TOUPPER:
	case UDT_CALL_TOLOWER: {
		char lo = subr == UDT_CALL_TOUPPER ? 'a' : 'A', hi = subr == UDT_CALL_TOUPPER ? 'z' : 'Z';
		char to = subr == UDT_CALL_TOUPPER ? 'A' : 'a';
		if ((f = str_get(m, d, args[0], 0, &a, bad)))
			return f;
		if (!(dst = str_new(m, a.n)))
			return UDT_FAULT_NOSCRATCH;
		for (uint64_t i = 0; i < a.n; i++)
			dst[i] = a.s[i] >= lo && a.s[i] <= hi ? (char)(to + (a.s[i] - lo)) : a.s[i];
		*ret = addr_of(dst);
		return 0;
	}
	case UDT_CALL_STRTOLL: {
		uint64_t base = argc > 1 ? args[1] : 10;
		if (base < 2 || base > 36)
			return UDT_FAULT_ILLOP;
		if ((f = str_get(m, d, args[0], 0, &a, bad)))
			return f;
		*ret = (uint64_t)strtoll_of(a, (int)base);
		return 0;
	}
	case UDT_CALL_COPYIN:
	case UDT_CALL_ALLOCA: {
		uint64_t size = subr == UDT_CALL_ALLOCA ? args[0] : args[1];
		uint64_t mark = m->scratch_used;
		uint8_t *p = scratch_take(m, size, 8);
		if (!p)
			return UDT_FAULT_NOSCRATCH;
		if (subr == UDT_CALL_ALLOCA) {
			memset(p, 0, size);
		} else if (udt__vm_mem_in(m, args[0], p, size, bad)) {
			m->scratch_used = mark;
			return UDT_FAULT_BADADDR;
		}
		*ret = addr_of(p);
		return 0;
	}
	case UDT_CALL_COPYINTO:
		/* the destination is memory alloca() gave this clause, or a variable's */
		if (!udt__vm_writable(m, args[2], args[1])) {
			*bad = args[2];
			return UDT_FAULT_BADADDR;
		}
		return udt__vm_mem_in(m, args[0], (uint8_t *)(uintptr_t)args[2], args[1], bad)
			       ? UDT_FAULT_BADADDR : 0;
	case UDT_CALL_BCOPY:
		if (!udt__vm_writable(m, args[1], args[2])) {
			*bad = args[1];
			return UDT_FAULT_BADADDR;
		}
		return udt__vm_mem_in(m, args[0], (uint8_t *)(uintptr_t)args[1], args[2], bad)
			       ? UDT_FAULT_BADADDR : 0;
	case UDT_CALL_COPYINSTR: {
		uint64_t lim = m->strsize - 1, n;
		if (argc > 1 && args[1] < lim)
			lim = args[1];
		uint64_t mark = m->scratch_used;
		if (!(dst = scratch_take(m, lim + 1, 1)))
			return UDT_FAULT_NOSCRATCH;
		if (copy_in(args[0], dst, lim, &n, bad)) {
			m->scratch_used = mark;
			return UDT_FAULT_BADADDR;
		}
		dst[n] = '\0';
		m->scratch_used = mark + n + 1;
		*ret = addr_of(dst);
		return 0;
	}
	case UDT_CALL_COPYOUT:
		/* DTrace's copyout(): the bytes at args[0] (any memory the fire may read) to
		   args[1] in the process, by the kernel, which refuses what is not writable */
		if (udt__safe_write(args[1], args[0], args[2])) {
			*bad = args[1];
			return UDT_FAULT_BADADDR;
		}
		return 0;
	case UDT_CALL_COPYOUTSTR: {
		/* the string and its NUL, at most args[2] bytes (no NUL when it is longer), as
		   DTrace's dtrace_copyoutstr() writes it */
		if ((f = str_get(m, d, args[0], 0, &a, bad)))
			return f;
		uint64_t n = a.n + 1 < args[2] ? a.n + 1 : args[2];
		if (!n)
			return 0;
		if (n > a.n) { /* (str_get's bytes need not end with a NUL: one from the scratch) */
			if (!(dst = str_new(m, a.n)))
				return UDT_FAULT_NOSCRATCH;
			memcpy(dst, a.s, a.n);
			a.s = dst;
		}
		if (udt__safe_write(args[1], addr_of(a.s), n)) {
			*bad = args[1];
			return UDT_FAULT_BADADDR;
		}
		return 0;
	}
	case UDT_CALL_INET_NTOA:
	case UDT_CALL_INET_NTOA6:
	case UDT_CALL_INET_NTOP:
	case UDT_CALL_LINK_NTOP:
		return net_text(m, subr, args, argc, ret, bad);
	default:
		return UDT_FAULT_ILLOP; /* (the verifier refused it) */
	}
}
