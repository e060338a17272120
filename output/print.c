/* SPDX-License-Identifier: MIT */
/*
 * print(): a value printed by its type, as illumos's dtrace prints it (its
 * dt_print.c, after mdb's ::print -tn):
 *
 *	struct foo {
 *	    int a = 0x1
 *	    char [8] name = [ "abc" ]
 *	    struct bar b = {
 *	        uint64_t v = 0x8877665544332211
 *	    }
 *	}
 *
 * A struct, union or array (of the process or a variable) is recorded as
 * its bytes (a tracemem() of its size); a scalar as trace() records it, a
 * string as a string. When the record is read, the bytes are walked as
 * DTrace walks a CTF type: each member named with its declared type,
 * integers in hexadecimal (a char as a character, a bit-field as its bits),
 * pointers as addresses, floats with "%+.7e", enums by name, a char array
 * that holds a string as one, other arrays as "[ a, b ]".
 *
 * Unlike illumos, an enum prints the name of its value (illumos's print()
 * reads it as 0), and nothing is printed after the last closing brace, as
 * in illumos: the next output starts on that line.
 */
#include "output/output.h"
#include "util/util.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* -- Printing, as illumos's dt_print.c does ----------------------------------------------- */

struct pr {
	FILE *out;
	struct dl_program *prog;
	const uint8_t *addr;      /* the object's bytes */
	uint64_t size;
	int depth;                /* of the last member printed */
	int nest;                 /* arrays the walk is in */
};

static bool structlike(const struct dl_type *t)
{
	return t->kind == DL_STRUCT || t->kind == DL_UNION;
}

/* A char, as CTF encodes one: a signed 8-bit integer named so. */
static bool is_char(const struct dl_type *t)
{
	return t->kind == DL_INT && t->size == 1 && t->is_signed;
}

/* The declared type's name as CTF gives it: "struct " for an anonymous struct. */
static const char *type_name(struct pr *pa, struct dl_qtype t)
{
	if ((t.t->kind == DL_STRUCT || t.t->kind == DL_UNION) && !t.t->name)
		return t.t->kind == DL_STRUCT ? "struct " : "union ";
	return dl_type_cdecl(pa->prog, t, NULL);
}

/* n bytes at byte off of the object (0 past its end) */
static uint64_t bytes_at(const struct pr *pa, uint64_t off, unsigned n)
{
	uint64_t v = 0;

	if (off < pa->size && n <= pa->size - off)
		memcpy(&v, pa->addr + off, n);
	return v;
}

static void hex(struct pr *pa, uint64_t off, unsigned size)
{
	uint64_t v = bytes_at(pa, off, size);

	if (size == 8)
		fprintf(pa->out, "%#llx", (unsigned long long)v);
	else if (size == 1 || size == 2 || size == 4)
		fprintf(pa->out, "%#x", (unsigned)v);
	else
		fprintf(pa->out, "<invalid size %u>", size);
}

static void trailing_braces(struct pr *pa, int depth)
{
	for (int d = pa->depth; d > depth; d--)
		fprintf(pa->out, "%*s}%s", (d + pa->nest - 1) * 4, "", d == depth + 1 ? "" : "\n");
}

static void indent(struct pr *pa)
{
	fprintf(pa->out, "%*s", (pa->depth + pa->nest) * 4, "");
}

static void visit(struct pr *pa, const char *name, struct dl_qtype t, uint64_t off,
		  uint8_t bit_off, uint8_t bit_width, int depth);

static void print_array(struct pr *pa, const struct dl_type *at, uint64_t off)
{
	const struct dl_type *el = dl_type_resolve(at->ref).t;
	uint64_t n = at->nelems, esz = el->size;
	bool isstring = false;
	uint64_t i;

	/* printable characters and a NUL before the end: a string */
	if (is_char(el)) {
		char c = 0;
		for (i = 0; i < n; i++) {
			c = (char)bytes_at(pa, off + i, 1);
			if (!isprint((unsigned char)c) || !c)
				break;
		}
		isstring = i != n && !c;
	}
	if (!isstring || pa->depth)
		fputs("[ ", pa->out);
	if (isstring)
		fputc('"', pa->out);
	for (i = 0; i < n; i++) {
		if (isstring) {
			char c = (char)bytes_at(pa, off + i, 1);
			if (!c)
				break;
			fputc(c, pa->out);
			continue;
		}
		/* each element walked on its own, nested */
		struct pr sub = *pa;
		sub.nest += pa->depth + 1;
		sub.depth = 0;
		sub.addr = off + esz * i <= pa->size ? pa->addr + off + esz * i : pa->addr;
		sub.size = off + esz * i <= pa->size ? pa->size - (off + esz * i) : 0;
		visit(&sub, "", at->ref, 0, 0, 0, 0);
		trailing_braces(&sub, 0);
		if (i != n - 1)
			fputs(", ", pa->out);
		else if (structlike(el))
			fputc('\n', pa->out);
	}
	if (isstring)
		fputc('"', pa->out);
	if (!isstring || pa->depth) {
		if (structlike(el))
			indent(pa);
		else
			fputc(' ', pa->out);
		fputc(']', pa->out);
	}
}

/* One node of the walk: member name (or "") of declared type t, then its members. */
static void visit(struct pr *pa, const char *name, struct dl_qtype t, uint64_t off,
		  uint8_t bit_off, uint8_t bit_width, int depth)
{
	const struct dl_type *r = dl_type_resolve(t).t;
	const char *tn = type_name(pa, t);
	bool arraymember = pa->nest && !depth, brief = arraymember && !structlike(r);
	/* (a bit-field's bits, or an integer whose size is not its type's) */
	bool bits = r->kind == DL_INT && bit_width &&
		    (bit_width % 8 || bit_off % 8 || (uint64_t)bit_width / 8 != r->size);

	trailing_braces(pa, depth);
	if (depth < pa->depth)
		fputc('\n', pa->out);
	pa->depth = depth;
	if (!brief) {
		if (arraymember)
			fputc('\n', pa->out);
		indent(pa);
		fputs(tn, pa->out);
		if (*name) {
			size_t l = strlen(tn);
			if (l && tn[l - 1] != '*' && tn[l - 1] != ' ')
				fputc(' ', pa->out);
			fputs(name, pa->out);
			if (bits)
				fprintf(pa->out, " :%u", bit_width);
			fputs(" =", pa->out);
		}
		fputc(' ', pa->out);
	}
	switch (r->kind) {
	case DL_INT:
		if (bits) {
			uint64_t u = bytes_at(pa, off, (unsigned)r->size) >> bit_off;
			fprintf(pa->out, "%#llx", (unsigned long long)(bit_width < 64
				? u & ((1ull << bit_width) - 1) : u));
		} else if (is_char(r)) {
			unsigned char c = (unsigned char)bytes_at(pa, off, 1);
			if (isprint(c))
				fprintf(pa->out, "'%c'", c);
			else if (!c)
				fputs("'\\0'", pa->out);
			else
				fprintf(pa->out, "'\\%03o'", c);
		} else {
			hex(pa, off, (unsigned)r->size);
		}
		break;
	case DL_FLOAT: {
		uint64_t u = bytes_at(pa, off, (unsigned)r->size);
		if (r->size == 4) {
			float f;
			uint32_t w = (uint32_t)u;
			memcpy(&f, &w, 4);
			fprintf(pa->out, "%+.7e", (double)f);
		} else if (r->size == 8) {
			double d;
			memcpy(&d, &u, 8);
			fprintf(pa->out, "%+.7e", d);
		} else {
			fputs("<unknown encoding>", pa->out);
		}
		break;
	}
	case DL_PTR:
	case DL_FUNC:
		hex(pa, off, 8);
		break;
	case DL_ARRAY:
		print_array(pa, r, off);
		break;
	case DL_STRUCT:
	case DL_UNION:
		fputc('{', pa->out);
		break;
	case DL_ENUM: {
		int32_t v = (int32_t)bytes_at(pa, off, 4);
		const char *en = NULL;
		for (size_t i = 0; i < r->enum_cnt && !en; i++)
			if (r->enums[i].value == v)
				en = r->enums[i].name;
		if (en)
			fputs(en, pa->out);
		else
			fprintf(pa->out, "%d", v);
		break;
	}
	default:
		fputs(r->complete ? "?" : "<forward decl>", pa->out);
		break;
	}
	if (!brief)
		fputc('\n', pa->out);
	if (!structlike(r))
		return;
	for (size_t i = 0; i < r->member_cnt; i++) {
		const struct dl_member *m = &r->members[i];
		visit(pa, m->name ? m->name : "", m->type, off + m->off, m->bit_off, m->bit_width,
		      depth + 1);
	}
}

void out_print_typed(FILE *out, struct dl_program *prog, struct dl_qtype type,
		     const uint8_t *bytes, uint64_t size)
{
	struct pr pa = { .out = out, .prog = prog, .addr = bytes, .size = size };

	visit(&pa, "", type, 0, 0, 0, 0);
	trailing_braces(&pa, 0);
}

void out__print_value(FILE *out, const struct out_val *v)
{
	if (v->s) {
		/* D's string: a char array as DTrace's print() shows it, "string "..."" */
		fprintf(out, "string \"%.*s\"\n", (int)strnlen(v->s, v->size), v->s);
		return;
	}
	out_print_typed(out, v->f->prog, v->f->type, v->bytes, v->size);
}
