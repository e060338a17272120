/* SPDX-License-Identifier: MIT */
/*
 * The text of network addresses at fire time: inet_ntoa(), inet_ntoa6(),
 * inet_ntop() and link_ntop() (vm_str.c reads the address's bytes, where
 * it is, and puts the text in the scratch space).
 *
 * As DTrace writes them (illumos's dtrace_dif_subr(), the reference where
 * its rules are its own): an IPv4 address as a dotted quad; an IPv6 address
 * as eight groups of lower-case hexadecimal without leading zeros, one run
 * of zero groups as "::" (the run illumos picks: the first of the longest,
 * a later one of the same length where illumos's byte scan takes it, a
 * single zero group too, but a last zero group not); an IPv4-mapped
 * (::ffff:a.b.c.d) or IPv4-compatible (::a.b.c.d, neither :: nor ::1)
 * address as its dotted quad alone (inet_ntoa6()) or after its IPv6 part
 * (inet_ntop(), and inet_ntoa6() given a second argument not 0, as Oracle's
 * DTrace has it). A link-layer address is its bytes in two hexadecimal
 * digits each, joined by ':'.
 *
 * Async-signal-safe: no allocation, no library call.
 */
#include "vm/vm_mem.h"

/* Linux's values, as Oracle's DTrace takes them (provider-support/net.d names them) */
#define AF_INET_LINUX 2
#define AF_INET6_LINUX 10
#define ARPHRD_ETHER_LINUX 1
#define ARPHRD_INFINIBAND_LINUX 32

uint32_t udt__vm_net_size(uint32_t subr, uint64_t kind)
{
	switch (subr) {
	case UDT_CALL_INET_NTOA:
		return 4;
	case UDT_CALL_INET_NTOA6:
		return 16;
	case UDT_CALL_INET_NTOP:
		return kind == AF_INET_LINUX ? 4 : kind == AF_INET6_LINUX ? 16 : 0;
	case UDT_CALL_LINK_NTOP:
		return kind == ARPHRD_ETHER_LINUX ? 6 : kind == ARPHRD_INFINIBAND_LINUX ? 20 : 0;
	default:
		return 0;
	}
}

static size_t put_dec(char *out, unsigned v)
{
	size_t n = 0;

	if (v >= 100)
		out[n++] = (char)('0' + v / 100);
	if (v >= 10)
		out[n++] = (char)('0' + v / 10 % 10);
	out[n++] = (char)('0' + v % 10);
	return n;
}

static size_t put_hex(char *out, unsigned v, unsigned min_digits)
{
	static const char hex[] = "0123456789abcdef";
	unsigned digits = 1;
	size_t n = 0;

	while (digits < 4 && v >> (4 * digits))
		digits++;
	if (digits < min_digits)
		digits = min_digits;
	while (digits--)
		out[n++] = hex[(v >> (4 * digits)) & 0xf];
	return n;
}

static size_t quad(const uint8_t *a, char *out)
{
	size_t n = 0;

	for (int i = 0; i < 4; i++) {
		if (i)
			out[n++] = '.';
		n += put_dec(out + n, a[i]);
	}
	return n;
}

/*
 * The run of zero bytes written "::", as illumos's scan finds it: a run
 * starts at a zero byte of even offset and ends at the next byte not zero
 * (or at the last byte); it is taken when it is longer, in bytes up to that
 * end, than the zero groups taken so far (at first, one byte), and counts
 * the whole groups before its end (the last group too when the address ends
 * with it). *first is -1 when there is none.
 */
static void zero_run(const uint8_t *a, int *first, int *len)
{
	int start = -1;

	*first = -1;
	*len = 1;
	for (int i = 0; i < 16; i++) {
		if (start < 0) {
			if (!a[i] && i % 2 == 0)
				start = i;
			continue;
		}
		if (!a[i] && i < 15)
			continue; /* the run goes on */
		if (i - start > *len) {
			*first = start;
			*len = i - i % 2 - start + (!a[i] && i == 15 ? 2 : 0);
		}
		start = -1;
	}
}

static size_t ip6(const uint8_t *a, bool embed, char *out)
{
	bool zero10 = true;
	int first, len;
	size_t n = 0;

	for (int i = 0; i < 10; i++)
		zero10 = zero10 && !a[i];
	bool mapped = zero10 && a[10] == 0xff && a[11] == 0xff;
	bool compat = zero10 && !a[10] && !a[11] && (a[12] || a[13] || a[14] || a[15] > 1);
	if ((mapped || compat) && !embed)
		return quad(a + 12, out);
	zero_run(a, &first, &len);
	/* the last group written in hexadecimal; "::" where its run ends no later */
	int last = mapped || compat ? 10 : 14;
	bool run = first >= 0 && first + len - 2 <= last;
	for (int i = 0; i <= last; i += 2) {
		if (run && i == first) {
			out[n++] = ':';
			out[n++] = ':';
			i = first + len - 2;
			continue;
		}
		n += put_hex(out + n, (unsigned)a[i] << 8 | a[i + 1], 1);
		if (i < 14 && !(run && i + 2 == first))
			out[n++] = ':';
	}
	if (mapped || compat)
		n += quad(a + 12, out + n);
	return n;
}

size_t udt__vm_net_text(uint32_t subr, uint64_t kind, bool embed, const uint8_t *a, char *out)
{
	uint32_t size = udt__vm_net_size(subr, kind);
	size_t n = 0;

	if (subr == UDT_CALL_LINK_NTOP) {
		for (uint32_t i = 0; i < size; i++) {
			if (i)
				out[n++] = ':';
			n += put_hex(out + n, a[i], 2);
		}
		return n;
	}
	if (size == 4)
		return quad(a, out);
	return ip6(a, embed || subr == UDT_CALL_INET_NTOP, out);
}
