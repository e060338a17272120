/* SPDX-License-Identifier: MIT */
/*
 * printf(): DTrace's format strings, checked when the script compiles and
 * printed from the values a record holds.
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
#include "output/output.h"
#include "util/util.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <wchar.h>

/*
 * The conversions DTrace accepts (its dt_printf.c dictionary), by name: the
 * length letters (h l ll L w) and the conversion character. What each
 * takes, and the prototype its messages name; a conversion with a length
 * takes only an integer of that size and sign (type, checked when the
 * argument's D type is known), as DTrace's compare C types, and prints it
 * at its own size: the length is a check, not a cast.
 */
static const struct conv {
	const char *name;
	enum out_pfclass cls;
	const char *proto;
	uint8_t size;             /* OUT_PF_TYPED: the integer's bytes */
	int8_t sign;              /* and its sign: 1 signed, 0 unsigned, -1 either */
} convs[] = {
	{ "a", OUT_PF_ADDR, "pointer or integer", 0, 0 },
	{ "A", OUT_PF_ADDR, "pointer or integer (with -p/-c) or _usymaddr (without -p/-c)", 0, 0 },
	{ "c", OUT_PF_CHAR, "char, short, or int", 0, 0 },
	{ "C", OUT_PF_CHAR, "char, short, or int", 0, 0 },
	{ "d", OUT_PF_SINT, "char, short, int, long, or long long", 0, 0 },
	{ "i", OUT_PF_SINT, "char, short, int, long, or long long", 0, 0 },
	{ "k", OUT_PF_STACK, "stack", 0, 0 },
	{ "e", OUT_PF_FLOAT, "float, double, or long double", 0, 0 },
	{ "E", OUT_PF_FLOAT, "float, double, or long double", 0, 0 },
	{ "f", OUT_PF_FLOAT, "float, double, or long double", 0, 0 },
	{ "g", OUT_PF_FLOAT, "float, double, or long double", 0, 0 },
	{ "G", OUT_PF_FLOAT, "float, double, or long double", 0, 0 },
	{ "hd", OUT_PF_TYPED, "short", 2, 1 },
	{ "hi", OUT_PF_TYPED, "short", 2, 1 },
	{ "ho", OUT_PF_TYPED, "unsigned short", 2, 0 },
	{ "hu", OUT_PF_TYPED, "unsigned short", 2, 0 },
	{ "hx", OUT_PF_TYPED, "short", 2, -1 },
	{ "hX", OUT_PF_TYPED, "short", 2, -1 },
	{ "lc", OUT_PF_TYPED, "int", 4, 1 },
	{ "ld", OUT_PF_TYPED, "long", 8, 1 },
	{ "li", OUT_PF_TYPED, "long", 8, 1 },
	{ "lo", OUT_PF_TYPED, "unsigned long", 8, 0 },
	{ "lu", OUT_PF_TYPED, "unsigned long", 8, 0 },
	{ "lx", OUT_PF_TYPED, "long", 8, -1 },
	{ "lX", OUT_PF_TYPED, "long", 8, -1 },
	{ "lld", OUT_PF_TYPED, "long long", 8, 1 },
	{ "lli", OUT_PF_TYPED, "long long", 8, 1 },
	{ "llo", OUT_PF_TYPED, "unsigned long long", 8, 0 },
	{ "llu", OUT_PF_TYPED, "unsigned long long", 8, 0 },
	{ "llx", OUT_PF_TYPED, "long long", 8, -1 },
	{ "llX", OUT_PF_TYPED, "long long", 8, -1 },
	{ "Le", OUT_PF_LDOUBLE, "long double", 0, 0 },
	{ "LE", OUT_PF_LDOUBLE, "long double", 0, 0 },
	{ "Lf", OUT_PF_LDOUBLE, "long double", 0, 0 },
	{ "Lg", OUT_PF_LDOUBLE, "long double", 0, 0 },
	{ "LG", OUT_PF_LDOUBLE, "long double", 0, 0 },
	{ "o", OUT_PF_UINT, "char, short, int, long, or long long", 0, 0 },
	{ "p", OUT_PF_ADDR, "pointer or integer", 0, 0 },
	{ "s", OUT_PF_STR, "char [] or string (or use stringof)", 0, 0 },
	{ "S", OUT_PF_STR, "char [] or string (or use stringof)", 0, 0 },
	{ "T", OUT_PF_TIME, "int64_t", 0, 0 },
	{ "u", OUT_PF_UINT, "char, short, int, long, or long long", 0, 0 },
	{ "wc", OUT_PF_TYPED, "int", 4, 1 },
	{ "x", OUT_PF_UINT, "char, short, int, long, or long long", 0, 0 },
	{ "X", OUT_PF_UINT, "char, short, int, long, or long long", 0, 0 },
	{ "Y", OUT_PF_TIME, "int64_t", 0, 0 },
};

static const struct conv *conv_named(const char *name)
{
	for (size_t i = 0; i < UDT__ARRAY_SIZE(convs); i++)
		if (!strcmp(convs[i].name, name))
			return &convs[i];
	return NULL;
}

void out_printf_free(struct out_printf *f)
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
static int parse_flags(const char **pp, size_t n, struct out_pfconv *c, char **ret_err)
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
			if (*(dot ? &c->prec : &c->width) == OUT_PF_STAR) {
				*ret_err = udt__xasprintf("format conversion #%zu has more than one '*' "
							  "specified for the output %s", n,
							  dot ? "precision" : "width");
				return -1;
			}
			*(dot ? &c->prec : &c->width) = OUT_PF_STAR;
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

int out_printf_parse(const char *fmt, struct out_printf *ret, char **ret_err)
{
	struct out_printf f = { 0 };
	size_t cap = 0;
	struct udt_strbuf text = { 0 };
	const char *p = fmt;

	for (;;) {
		struct out_pfconv c = { .width = -1, .prec = -1 };

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
		p++;
		if (parse_flags(&p, n, &c, ret_err)) {
			free(c.prefix);
			goto fail;
		}
		/* DTrace's name: the length letters, then the conversion character */
		size_t nl = 0;
		while (*p && strchr("hlLw", *p)) {
			if (nl + 2 < sizeof(c.name))
				c.name[nl++] = *p;
			p++;
		}
		if (!*p) {
			free(c.prefix);
			*ret_err = udt__xasprintf("format conversion #%zu name expected before end "
						  "of format string", n);
			goto fail;
		}
		c.conv = *p++;
		c.name[nl] = c.conv;
		const struct conv *cv = conv_named(c.name);
		if (!cv) {
			*ret_err = udt__xasprintf("format conversion #%zu is undefined: %%%s", n,
						  c.name);
			free(c.prefix);
			goto fail;
		}
		c.cls = cv->cls;
		f.nvals += 1 + (c.width == OUT_PF_STAR) + (c.prec == OUT_PF_STAR);
		f.names_addrs |= c.conv == 'a' || c.conv == 'A';
		UDT__PUSH(f.v, f.cnt, cap, c);
	}
	*ret = f;
	return 0;
fail:
	out_printf_free(&f);
	return -1;
}

/* May value v (what the argument is) go to conversion cv (the '*' before it: star)? */
static bool compatible(const struct conv *cv, bool star, const struct out_pfval *v)
{
	struct dl_qtype t = v->type.t ? dl_type_resolve(v->type) : v->type;

	if (star)
		return v->kind == OUT_PFV_INT;
	switch (cv->cls) {
	case OUT_PF_SINT:
	case OUT_PF_UINT:
		/* (udtrace's %u %o %x also take a pointer, which DTrace asks %p for) */
		return v->kind == OUT_PFV_INT || (cv->cls == OUT_PF_UINT && v->kind == OUT_PFV_PTR);
	case OUT_PF_CHAR:
		return v->kind == OUT_PFV_INT && (!t.t || t.t->size <= 4);
	case OUT_PF_TIME:
		return v->kind == OUT_PFV_INT && (!t.t || t.t->size == 8);
	case OUT_PF_ADDR:
		return v->kind == OUT_PFV_INT || v->kind == OUT_PFV_PTR;
	case OUT_PF_STR:
		return v->kind == OUT_PFV_STR;
	case OUT_PF_FLOAT:
		return v->kind == OUT_PFV_FLOAT;
	case OUT_PF_TYPED:
		/* an integer of the size and sign (an enum is an int); an untyped key any */
		if (v->kind != OUT_PFV_INT)
			return false;
		if (!t.t)
			return true;
		return t.t->size == cv->size &&
		       (cv->sign < 0 || (t.t->kind == DL_ENUM || t.t->is_signed) == cv->sign);
	case OUT_PF_STACK:
		return v->kind == OUT_PFV_STACK;
	case OUT_PF_LDOUBLE:
	case OUT_PF_WIDTH:
		return false;
	}
	return false;
}

int out_printf_check(const char *fn, const struct out_printf *f, const struct out_pfval *vals,
		    size_t nvals, char **ret_err)
{
	size_t k = 0;

	if (f->cnt == 1 && !f->v[0].conv && !*f->v[0].prefix) {
		*ret_err = udt__xasprintf("%s( ) format string is empty", fn);
		return -1;
	}
	for (size_t i = 0; i < f->cnt; i++) {
		const struct out_pfconv *c = &f->v[i];
		const struct conv *cv;
		const char *dyn[2];
		size_t ndyn = 0;

		if (!c->conv)
			break;
		cv = conv_named(c->name);
		if (c->agg && strcmp(fn, "printa")) {
			*ret_err = udt__xasprintf("%%@ conversion requires an aggregation and is not "
						  "for use with %s( )", fn);
			return -1;
		}
		/* DTrace's order: the precision's '*', then the width's, then the value */
		if (c->prec == OUT_PF_STAR)
			dyn[ndyn++] = ".*";
		if (c->width == OUT_PF_STAR)
			dyn[ndyn++] = "*";
		for (size_t w = 0; w <= ndyn; w++, k++) {
			bool star = w < ndyn;
			if (k >= nvals) {
				*ret_err = udt__xasprintf("%s( ) prototype mismatch: conversion #%zu "
							  "(%%%s) is missing a corresponding %s%s%s "
							  "argument", fn, i + 1, c->name,
							  star ? "\"" : "", star ? dyn[w] : "value",
							  star ? "\"" : "");
				return -1;
			}
			if (compatible(cv, star, &vals[k]))
				continue;
			if (star)
				*ret_err = udt__xasprintf(
					"%s( ) argument #%zu is incompatible with conversion #%zu "
					"prototype:\n\tconversion: %% %s %s\n\t prototype: int\n"
					"\t  argument: %s", fn, k + 2, i + 1, dyn[w], c->name,
					vals[k].name);
			else
				*ret_err = udt__xasprintf(
					"%s( ) argument #%zu is incompatible with conversion #%zu "
					"prototype:\n\tconversion: %%%s\n\t prototype: %s\n"
					"\t  argument: %s", fn, k + 2, i + 1, c->name, cv->proto,
					vals[k].name);
			return -1;
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

/* A '*' width or precision: the value, signed at its size, clamped to an int's range. */
static int64_t star_value(const struct out_pfarg *a)
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

void out_printf_print(FILE *out, const struct out_printf *f, const struct out_pfarg *args,
		      size_t nargs, const struct out_namer *namer)
{
	size_t k = 0;

	for (size_t i = 0; i < f->cnt; i++) {
		const struct out_pfconv *c = &f->v[i];
		char spec[64];
		int width = c->width, prec = c->prec;
		bool has_width = width != -1, has_prec = prec != -1;

		fputs(c->prefix, out);
		if (!c->conv)
			break;
		/* a '*' value at its size, signed: a negative width is '-' and its absolute
		   value, a negative precision none (C's, and DTrace's) */
		if (width == OUT_PF_STAR)
			width = k < nargs ? (int)star_value(&args[k++]) : 0;
		if (prec == OUT_PF_STAR)
			prec = k < nargs ? (int)star_value(&args[k++]) : -1;
		if (k >= nargs)
			break; /* the check at compile time makes this unreachable */
		const struct out_pfarg *a = &args[k++];
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
		case 'k':
			str = a->s ? a->s : "";
			snprintf(tail, room, "s");
			break;
		case 'S':
			escape(&sb, a->s ? a->s : "");
			str = udt__sb_str(&sb);
			snprintf(tail, room, "s");
			break;
		case 'c':
			/* %lc and %wc: a wide character, as the locale writes it */
			snprintf(tail, room, c->name[0] == 'c' ? "c" : "lc");
			break;
		case 'C': {
			char ch[2] = { (char)a->v, '\0' };
			escape(&sb, ch);
			str = udt__sb_str(&sb);
			snprintf(tail, room, "s");
			break;
		}
		case 'T':
		case 'Y': {
			/* %Y as mdb's "2026 Nov 22 05:54:05"; %T RFC 822's, with DTrace's %G year */
			time_t secs = (time_t)(a->v / 1000000000u);
			struct tm tm;
			char buf[64] = "";
			if (localtime_r(&secs, &tm))
				strftime(buf, sizeof(buf), c->conv == 'Y' ? "%Y %b %e %T"
								       : "%a, %d %b %G %T %Z", &tm);
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
			udt__sb_puts(&sb, out_name(namer, a->v, OUT_ADDR_UADDR, false));
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
			v = c->name[0] == 'c' ? (unsigned char)a->v : (uint32_t)a->v;
		} else if (!str) {
			/* (DTrace's %d and %i of an unsigned type are %u) */
			bool sign = (c->conv == 'd' || c->conv == 'i') && !a->is_unsigned;
			v = resize(a->v, c->conv == 'p' ? 64 : a->size * 8, sign);
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
		else if (c->cls == OUT_PF_FLOAT)
			PF_ONE(d);
		else if (c->conv == 'c' && c->name[0] != 'c')
			PF_ONE((wint_t)v);
		else if (c->conv == 'c')
			PF_ONE((int)v);
		else
			PF_ONE((long long)v);
#undef PF_ONE
#pragma GCC diagnostic pop
		udt__sb_reset(&sb);
	}
}
