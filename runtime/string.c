/* SPDX-License-Identifier: MIT */
/*
 * The memory and string functions of libudtrace. Every object of the library
 * has its references to memcpy, memset, strlen... renamed to these
 * (objcopy --redefine-syms=runtime/string.syms, runtime/build.mk), the
 * compiler's own calls (structure copies, zeroing loops) included, so that
 * the runtime never calls the C library's: those are chosen at load time
 * for the CPU (AVX2, AVX-512), and leave vector registers and their upper
 * halves changed (vzeroupper zeroes them). A SystemTap site that jumps to a
 * trampoline saves only the general registers, the flags and %xmm0-15
 * for the runtime (runtime/sites.c, tramp_x86_64.S): all that this code,
 * compiled for the x86-64 baseline, touches (it never writes MXCSR). The library then imports
 * no memory or string function (tests/integration/notes.sh checks it).
 *
 * Plain and short: the runtime copies records of tens of bytes, keys and
 * strings of hundreds. memcpy and memset are the CPU's string instructions
 * (fast for any size on CPUs with ERMS); the others byte loops. Built with
 * -fno-builtin -fno-tree-loop-distribute-patterns, so that no loop here is
 * turned back into a call (which the renaming would make a recursion).
 */
#include <stddef.h>
#include <stdint.h>

#define STR(name) __attribute__((visibility("hidden"))) name

STR(void *udt__memcpy(void *dst, const void *src, size_t n));
STR(void *udt__memmove(void *dst, const void *src, size_t n));
STR(void *udt__memset(void *dst, int c, size_t n));
STR(int udt__memcmp(const void *a, const void *b, size_t n));
STR(void *udt__memchr(const void *s, int c, size_t n));
STR(size_t udt__strlen(const char *s));
STR(size_t udt__strnlen(const char *s, size_t max));
STR(int udt__strcmp(const char *a, const char *b));
STR(int udt__strncmp(const char *a, const char *b, size_t n));
STR(char *udt__strchr(const char *s, int c));
STR(char *udt__strcpy(char *dst, const char *src));
STR(char *udt__stpcpy(char *dst, const char *src));
STR(char *udt__strcat(char *dst, const char *src));
STR(size_t udt__strspn(const char *s, const char *accept));
STR(size_t udt__strcspn(const char *s, const char *reject));
STR(char *udt__strpbrk(const char *s, const char *accept));
STR(char *udt__strstr(const char *hay, const char *needle));

/* Below this, a loop of words: the string instructions take tens of cycles to start. */
#define SMALL 64

void *udt__memcpy(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

#if defined(__x86_64__)
	if (n >= SMALL) {
		__asm__ __volatile__("rep movsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
		return dst;
	}
#endif
	for (; n >= 8; n -= 8, d += 8, s += 8) {
		uint64_t w;
		__builtin_memcpy(&w, s, 8); /* (a single load: no call, even under -fno-builtin) */
		__builtin_memcpy(d, &w, 8);
	}
	while (n--)
		*d++ = *s++;
	return dst;
}

void *udt__memmove(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	if ((uintptr_t)d - (uintptr_t)s >= n)
		return udt__memcpy(dst, src, n); /* no overlap that a forward copy would spoil */
	while (n--)
		d[n] = s[n];
	return dst;
}

void *udt__memset(void *dst, int c, size_t n)
{
	unsigned char *d = dst;
	uint64_t w = 0x0101010101010101ull * (unsigned char)c;

#if defined(__x86_64__)
	if (n >= SMALL) {
		__asm__ __volatile__("rep stosb" : "+D"(d), "+c"(n) : "a"(c) : "memory");
		return dst;
	}
#endif
	for (; n >= 8; n -= 8, d += 8)
		__builtin_memcpy(d, &w, 8);
	while (n--)
		*d++ = (unsigned char)c;
	return dst;
}

int udt__memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;

	for (size_t i = 0; i < n; i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return 0;
}

void *udt__memchr(const void *s, int c, size_t n)
{
	const unsigned char *p = s;

	for (size_t i = 0; i < n; i++)
		if (p[i] == (unsigned char)c)
			return (void *)(uintptr_t)(p + i);
	return NULL;
}

size_t udt__strlen(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

size_t udt__strnlen(const char *s, size_t max)
{
	size_t n = 0;

	while (n < max && s[n])
		n++;
	return n;
}

int udt__strncmp(const char *a, const char *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char x = (unsigned char)a[i], y = (unsigned char)b[i];
		if (x != y)
			return x < y ? -1 : 1;
		if (!x)
			break;
	}
	return 0;
}

int udt__strcmp(const char *a, const char *b)
{
	return udt__strncmp(a, b, SIZE_MAX);
}

char *udt__strchr(const char *s, int c)
{
	for (;; s++) {
		if (*s == (char)c)
			return (char *)(uintptr_t)s;
		if (!*s)
			return NULL;
	}
}

char *udt__stpcpy(char *dst, const char *src)
{
	while ((*dst = *src++))
		dst++;
	return dst;
}

char *udt__strcpy(char *dst, const char *src)
{
	udt__stpcpy(dst, src);
	return dst;
}

char *udt__strcat(char *dst, const char *src)
{
	udt__stpcpy(dst + udt__strlen(dst), src);
	return dst;
}

size_t udt__strspn(const char *s, const char *accept)
{
	size_t n = 0;

	while (s[n] && udt__strchr(accept, s[n]))
		n++;
	return n;
}

size_t udt__strcspn(const char *s, const char *reject)
{
	size_t n = 0;

	while (s[n] && !udt__strchr(reject, s[n]))
		n++;
	return n;
}

char *udt__strpbrk(const char *s, const char *accept)
{
	s += udt__strcspn(s, accept);
	return *s ? (char *)(uintptr_t)s : NULL;
}

char *udt__strstr(const char *hay, const char *needle)
{
	size_t n = udt__strlen(needle);

	for (; *hay; hay++)
		if (!udt__strncmp(hay, needle, n))
			return (char *)(uintptr_t)hay;
	return n ? NULL : (char *)(uintptr_t)hay;
}
