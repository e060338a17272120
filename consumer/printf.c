/* SPDX-License-Identifier: MIT */
/*
 * printf(): DTrace's format strings, checked when the script compiles and
 * printed by the consumer from the values a record holds.
 *
 * A format is split into conversions, each with the text before it (a last
 * one with no conversion holds the trailing text). A conversion is C's:
 * flags (- + space # 0 '), a width and a precision (digits or * for a value),
 * a length (hh h l ll j z t) and one of d i o u x X c s S p a A Y, or e E f g G
 * (of a float or a double read from the process: D's values are integers,
 * and DTrace refuses these conversions for them too). As in DTrace,
 * integers are formatted at the size of their D type (or of the length
 * given), %p is hexadecimal without a prefix, %a and %A name an address
 * of the process as uaddr() does (DTrace's %a names a kernel address, %A a
 * user one: here every address is the process's), %S escapes what is not
 * printable, and %Y formats a walltimestamp as "2026 Nov 22 05:54:05".
 * Positional arguments (%1$d) are refused.
 */
#include "consumer/internal.h"
#include "util/util.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *class_proto(enum cs_pfclass c)
{
	switch (c) {
	case CS_PF_SINT:
		return "char, short, int, long, or long long";
	case CS_PF_UINT:
		return "char, short, int, long, long long, or pointer";
	case CS_PF_CHAR:
		return "char, short, or int";
	case CS_PF_STR:
		return "char [] or string";
	case CS_PF_TIME:
		return "int64_t, uint64_t, int, or long";
	case CS_PF_WIDTH:
		return "int";
	case CS_PF_FLOAT:
		return "float, double, or long double";
	case CS_PF_LDOUBLE:
		return "long double";
	}
	return "?";
}

/* The class of conversion character c with length len; false if undefined. */
static bool conv_class(char c, const char *len, enum cs_pfclass *ret)
{
	bool ld = !strcmp(len, "L");

	if (strchr("eEfgG", c)) {
		/* DTrace's %e... take a float, a double or a long double; %Le... a long double */
		*ret = ld ? CS_PF_LDOUBLE : CS_PF_FLOAT;
		return ld || !*len;
	}
	if (ld)
		return false;
	switch (c) {
	case 'd':
	case 'i':
		*ret = CS_PF_SINT;
		return true;
	case 'o':
	case 'u':
	case 'x':
	case 'X':
	case 'p':
		*ret = CS_PF_UINT;
		return true;
	case 'a':
	case 'A':
		*ret = CS_PF_UINT;
		return !*len;
	case 'c':
		*ret = CS_PF_CHAR;
		return !*len || !strcmp(len, "l");
	case 's':
	case 'S':
		*ret = CS_PF_STR;
		return !*len;
	case 'Y':
		*ret = CS_PF_TIME;
		return !*len;
	default:
		return false;
	}
}

void cs_printf_free(struct cs_printf *f)
{
	for (size_t i = 0; i < f->cnt; i++)
		free(f->v[i].prefix);
	free(f->v);
	memset(f, 0, sizeof(*f));
}

/*
 * What comes between a conversion's '%' and its length, in any order, as
 * DTrace's dt_printf_create() reads it: the flags (- + space # ' and 0 when
 * it begins a number), a width and a precision (digits or '*'), printa()'s
 * '@' (the aggregation's value) and '?' (the width of a pointer). *pp is
 * past the '%'; it is left at the length or the conversion character.
 * 0, or -1 with DTrace's message (conversion n) in *ret_err.
 */
static int parse_flags(const char **pp, size_t n, struct cs_pfconv *c, char **ret_err)
{
	const char *p = *pp;
	size_t nf = 0;
	bool dot = false, digits = false;

	for (;; p++) {
		if (isdigit((unsigned char)*p)) {
			if (*p == '0' && !dot && !digits) {
				if (!strchr(c->flags, '0') && nf + 1 < sizeof(c->flags))
					c->flags[nf++] = '0';
				continue;
			}
			int v = 0;
			for (; isdigit((unsigned char)*p); p++)
				v = v < 100000 ? v * 10 + (*p - '0') : v;
			p--;
			*(dot ? &c->prec : &c->width) = v;
			digits = true;
			continue;
		}
		switch (*p) {
		case '-':
		case '+':
		case ' ':
		case '#':
		case '\'':
			if (!strchr(c->flags, *p) && nf + 1 < sizeof(c->flags))
				c->flags[nf++] = *p;
			continue;
		case '@':
			c->agg = true; /* printa's value: not a flag of C's */
			continue;
		case '?':
			c->width = 16; /* a 64-bit pointer's digits */
			continue;
		case '*':
			if (*(dot ? &c->prec : &c->width) == CS_PF_STAR) {
				*ret_err = udt__xasprintf("format conversion #%zu has more than one '*' "
							  "specified for the output %s", n,
							  dot ? "precision" : "width");
				return -1;
			}
			*(dot ? &c->prec : &c->width) = CS_PF_STAR;
			continue;
		case '.':
			if (dot) {
				*ret_err = udt__xasprintf("format conversion #%zu has more than one '.' "
							  "specified", n);
				return -1;
			}
			dot = true;
			digits = false;
			c->prec = 0;
			continue;
		case '$':
			*ret_err = udt__xasprintf("format conversion #%zu uses unsupported positional "
						  "format (%%n$)", n);
			return -1;
		case '%':
			*ret_err = udt__xasprintf("format conversion #%zu cannot be combined with other "
						  "format flags: %%%%", n);
			return -1;
		default:
			*pp = p;
			return 0;
		}
	}
}

int cs_printf_parse(const char *fmt, struct cs_printf *ret, char **ret_err)
{
	struct cs_printf f = { 0 };
	size_t cap = 0;
	struct udt_strbuf text = { 0 };
	const char *p = fmt;

	for (;;) {
		struct cs_pfconv c = { .width = -1, .prec = -1 };

		while (*p && !(*p == '%' && p[1] != '%')) {
			udt__sb_putc(&text, *p);
			p += *p == '%' ? 2 : 1; /* "%%" is one '%' */
		}
		c.prefix = udt__sb_take(&text);
		if (!*p) {
			UDT__PUSH(f.v, f.cnt, cap, c);
			break;
		}
		size_t n = f.cnt + 1; /* this conversion's number */
		const char *start = p++;
		if (parse_flags(&p, n, &c, ret_err)) {
			free(c.prefix);
			goto fail;
		}
		size_t nl = 0;
		while (*p && strchr("hljztL", *p) && nl + 1 < sizeof(c.len))
			c.len[nl++] = *p++;
		if (!*p) {
			free(c.prefix);
			*ret_err = udt__xasprintf("format conversion #%zu name expected before end "
						  "of format string", n);
			goto fail;
		}
		c.conv = *p++;
		snprintf(c.spec, sizeof(c.spec), "%.*s", (int)(p - start), start);
		if ((strcmp(c.len, "") && strcmp(c.len, "h") && strcmp(c.len, "hh") &&
		     strcmp(c.len, "l") && strcmp(c.len, "ll") && strcmp(c.len, "j") &&
		     strcmp(c.len, "z") && strcmp(c.len, "t") && strcmp(c.len, "L")) ||
		    !conv_class(c.conv, c.len, &c.cls)) {
			*ret_err = udt__xasprintf("format conversion #%zu is undefined: %s", n, c.spec);
			free(c.prefix);
			goto fail;
		}
		f.nvals += 1 + (c.width == CS_PF_STAR) + (c.prec == CS_PF_STAR);
		f.names_addrs |= c.conv == 'a' || c.conv == 'A';
		UDT__PUSH(f.v, f.cnt, cap, c);
	}
	*ret = f;
	return 0;
fail:
	cs_printf_free(&f);
	return -1;
}

/* Can a value of class vc (what the argument is) go to a conversion of class want? */
static bool compatible(enum cs_pfclass want, enum cs_pfvalue vc)
{
	switch (want) {
	case CS_PF_SINT:
	case CS_PF_CHAR:
	case CS_PF_TIME:
	case CS_PF_WIDTH:
		return vc == CS_PFV_INT;
	case CS_PF_UINT:
		return vc == CS_PFV_INT || vc == CS_PFV_PTR;
	case CS_PF_STR:
		return vc == CS_PFV_STR;
	case CS_PF_FLOAT:
		return vc == CS_PFV_FLOAT;
	case CS_PF_LDOUBLE:
		return false;
	}
	return false;
}

int cs_printf_check(const char *fn, const struct cs_printf *f, const enum cs_pfvalue *vals,
		    const char *const *names, size_t nvals, char **ret_err)
{
	size_t k = 0;

	if (f->cnt == 1 && !f->v[0].conv && !*f->v[0].prefix) {
		*ret_err = udt__xasprintf("%s( ) format string is empty", fn);
		return -1;
	}
	for (size_t i = 0; i < f->cnt; i++) {
		const struct cs_pfconv *c = &f->v[i];
		enum cs_pfclass want[3];
		size_t nw = 0;

		if (!c->conv)
			break;
		if (c->agg && strcmp(fn, "printa")) {
			*ret_err = udt__xasprintf("%%@ conversion requires an aggregation and is not "
						  "for use with %s( )", fn);
			return -1;
		}
		if (c->width == CS_PF_STAR)
			want[nw++] = CS_PF_WIDTH;
		if (c->prec == CS_PF_STAR)
			want[nw++] = CS_PF_WIDTH;
		want[nw++] = c->cls;
		for (size_t w = 0; w < nw; w++, k++) {
			bool star = w + 1 < nw;
			if (k >= nvals) {
				*ret_err = udt__xasprintf("%s( ) prototype mismatch: conversion #%zu "
							  "(%s) is missing a corresponding %s argument",
							  fn, i + 1, c->spec, star ? "\"*\"" : "value");
				return -1;
			}
			if (!compatible(want[w], vals[k])) {
				*ret_err = udt__xasprintf(
					"%s( ) argument #%zu is incompatible with conversion #%zu "
					"prototype:\n\tconversion: %s\n\t prototype: %s\n\t  argument: %s",
					fn, k + 2, i + 1, c->spec, class_proto(want[w]), names[k]);
				return -1;
			}
		}
	}
	if (k < nvals) {
		*ret_err = udt__xasprintf("%s( ) prototype mismatch: only %zu arguments required "
					  "by this format string", fn, k + 1);
		return -1;
	}
	return 0;
}

/* v as an integer of bits bits, sign-extended or not. */
static uint64_t resize(uint64_t v, unsigned bits, bool sign)
{
	if (bits >= 64)
		return v;
	uint64_t m = ((uint64_t)1 << bits) - 1;
	v &= m;
	if (sign && (v >> (bits - 1)))
		v |= ~m;
	return v;
}

/* The width in bits an integer conversion formats at: its length, else the value's size. */
static unsigned int_bits(const struct cs_pfconv *c, unsigned size)
{
	if (!strcmp(c->len, "hh"))
		return 8;
	if (!strcmp(c->len, "h"))
		return 16;
	if (*c->len)
		return 64;
	return size * 8;
}

/* A '*' width or precision: the value, signed at its size, clamped to an int's range. */
static int64_t star_value(const struct cs_pfarg *a)
{
	int64_t v = (int64_t)resize(a->v, a->size ? a->size * 8 : 64, true);

	return v < -100000 ? -100000 : v > 100000 ? 100000 : v;
}

/* %S: the string with C's escapes for what is not printable. */
static void escape(struct udt_strbuf *sb, const char *s)
{
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		const char *e = strchr("\a\b\f\n\r\t\v\\\"", ch);

		if (e && ch)
			udt__sb_printf(sb, "\\%c", "abfnrtv\\\""[e - "\a\b\f\n\r\t\v\\\""]);
		else if (isprint(ch))
			udt__sb_putc(sb, (char)ch);
		else
			udt__sb_printf(sb, "\\%03o", ch);
	}
}

void cs_printf_print(FILE *out, const struct cs_printf *f, const struct cs_pfarg *args, size_t nargs,
		     struct cs_syms *syms)
{
	size_t k = 0;

	for (size_t i = 0; i < f->cnt; i++) {
		const struct cs_pfconv *c = &f->v[i];
		char spec[64];
		int width = c->width, prec = c->prec;
		bool has_width = width != -1, has_prec = prec != -1;

		fputs(c->prefix, out);
		if (!c->conv)
			break;
		/* a '*' value at its size, signed: a negative width is '-' and its absolute
		   value, a negative precision none (C's, and DTrace's) */
		if (width == CS_PF_STAR)
			width = k < nargs ? (int)star_value(&args[k++]) : 0;
		if (prec == CS_PF_STAR)
			prec = k < nargs ? (int)star_value(&args[k++]) : -1;
		if (k >= nargs)
			break; /* the check at compile time makes this unreachable */
		const struct cs_pfarg *a = &args[k++];
		if (a->fn) {
			a->fn(out, a->fn_arg);
			continue;
		}
		/* the flags, then '*' for the width and precision passed as ints */
		int n = snprintf(spec, sizeof(spec), "%%%s%s%s", c->flags, has_width ? "*" : "",
				 has_prec ? ".*" : "");
		char *tail = spec + n;
		size_t room = sizeof(spec) - (size_t)n;
		const char *str = NULL;
		struct udt_strbuf sb = { 0 };
		uint64_t v;

		switch (c->conv) {
		case 's':
			str = a->s ? a->s : "";
			snprintf(tail, room, "s");
			break;
		case 'S':
			escape(&sb, a->s ? a->s : "");
			str = udt__sb_str(&sb);
			snprintf(tail, room, "s");
			break;
		case 'c':
			snprintf(tail, room, "c");
			break;
		case 'Y': {
			time_t secs = (time_t)(a->v / 1000000000u);
			struct tm tm;
			char buf[64] = "";
			if (localtime_r(&secs, &tm))
				strftime(buf, sizeof(buf), "%Y %b %e %T", &tm);
			udt__sb_puts(&sb, buf);
			str = udt__sb_str(&sb);
			snprintf(tail, room, "s");
			break;
		}
		case 'p':
			snprintf(tail, room, "llx");
			break;
		case 'a':
		case 'A':
			if (syms)
				udt__sb_puts(&sb, cs__syms_name(syms, a->v, CS_ADDR_UADDR, false));
			else
				udt__sb_printf(&sb, "0x%llx", (unsigned long long)a->v);
			str = udt__sb_str(&sb);
			snprintf(tail, room, "s");
			break;
		case 'e':
		case 'E':
		case 'f':
		case 'g':
		case 'G':
			snprintf(tail, room, "%c", c->conv);
			break;
		default:
			snprintf(tail, room, "ll%c", (c->conv == 'd' || c->conv == 'i') &&
					     a->is_unsigned ? 'u' : c->conv);
			break;
		}
		double d = 0;
		if (a->is_float) {
			/* the bits as recorded: a float's in the low 4 bytes, or a double's */
			if (a->size == 4) {
				float fl;
				uint32_t bits = (uint32_t)a->v;
				memcpy(&fl, &bits, 4);
				d = fl;
			} else {
				memcpy(&d, &a->v, 8);
			}
		}
		if (c->conv == 'c') {
			v = (unsigned char)a->v;
		} else if (!str) {
			/* (DTrace's %d and %i of an unsigned type are %u) */
			bool sign = (c->conv == 'd' || c->conv == 'i') && !a->is_unsigned;
			v = resize(a->v, c->conv == 'p' ? 64 : int_bits(c, a->size), sign);
		} else {
			v = 0;
		}
		/* spec is made here from a checked conversion; one call per combination of '*'
		   arguments, as C's varargs have no other way */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#define PF_ONE(x)                                                                                \
	do {                                                                                     \
		if (has_width && has_prec)                                                       \
			fprintf(out, spec, width, prec, x);                                      \
		else if (has_width)                                                              \
			fprintf(out, spec, width, x);                                            \
		else if (has_prec)                                                               \
			fprintf(out, spec, prec, x);                                             \
		else                                                                             \
			fprintf(out, spec, x);                                                   \
	} while (0)
		if (str)
			PF_ONE(str);
		else if (c->cls == CS_PF_FLOAT)
			PF_ONE(d);
		else if (c->conv == 'c')
			PF_ONE((int)v);
		else
			PF_ONE((long long)v);
#undef PF_ONE
#pragma GCC diagnostic pop
		udt__sb_reset(&sb);
	}
}
