/* SPDX-License-Identifier: MIT */
/*
 * Building probe tables in the runtime (runtime/tables.h): the layout of
 * docs/format.md §2, as dtrace-g/table.c writes it, but in memory and with
 * 48-byte probe records that carry a module name.
 *
 * One block: header, the provider record, the probe records, the argument
 * records, the function-name offsets, the string table; each part 8-aligned.
 * The sizes are summed first so the block is allocated once; nothing here
 * runs on the probe path.
 */
#include "runtime/tables.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define ALIGN8(x) (((x) + 7) & ~(size_t)7)

/* The string table being filled: offset 0 is "". */
struct strtab {
	char *buf;
	size_t len;
};

static uint32_t str_put(struct strtab *st, const char *s)
{
	size_t n;
	uint32_t off;

	if (!s || !*s)
		return 0;
	n = strlen(s) + 1;
	off = (uint32_t)st->len;
	memcpy(st->buf + st->len, s, n);
	st->len += n;
	return off;
}

static size_t str_need(const char *s)
{
	return s && *s ? strlen(s) + 1 : 0;
}

static void put_arg(struct udt_table_arg *a, struct strtab *st, const struct rt_targ *ta)
{
	a->type = str_put(st, ta->type);
	a->name = str_put(st, ta->name);
	a->mapping = ta->mapping;
	a->kind = ta->kind;
	a->size = ta->size;
	a->is_signed = ta->is_signed;
}

struct udt_table_hdr *rt_table_build(const char *provider, const struct rt_tprobe *probes,
				     size_t probe_cnt, const void *dispatch)
{
	size_t arg_cnt = 0, func_cnt = 0, str_sz = 1 + str_need(provider);
	size_t prov_off, probe_off, arg_off, func_off, str_off, total;
	struct udt_table_hdr *h;
	struct strtab st;
	uint32_t narg = 0, nfunc = 0;
	char *base;

	for (size_t i = 0; i < probe_cnt; i++) {
		const struct rt_tprobe *p = &probes[i];

		if (p->narg_cnt > 255 || p->xarg_cnt > 255)
			return NULL;
		arg_cnt += p->narg_cnt + (p->xargs ? p->xarg_cnt : 0);
		func_cnt += p->func && *p->func;
		str_sz += str_need(p->name) + str_need(p->mod) + str_need(p->func);
		for (uint32_t a = 0; a < p->narg_cnt; a++)
			str_sz += str_need(p->nargs[a].type) + str_need(p->nargs[a].name);
		for (uint32_t a = 0; p->xargs && a < p->xarg_cnt; a++)
			str_sz += str_need(p->xargs[a].type) + str_need(p->xargs[a].name);
	}
	prov_off = ALIGN8(sizeof(*h));
	probe_off = ALIGN8(prov_off + sizeof(struct udt_table_provider));
	arg_off = ALIGN8(probe_off + probe_cnt * sizeof(struct udt_table_probe));
	func_off = ALIGN8(arg_off + arg_cnt * sizeof(struct udt_table_arg));
	str_off = ALIGN8(func_off + func_cnt * sizeof(uint32_t));
	total = ALIGN8(str_off + str_sz);
	if (total > UINT32_MAX)
		return NULL;
	base = calloc(1, total);
	if (!base)
		return NULL;
	h = (struct udt_table_hdr *)base;
	st.buf = base + str_off;
	st.len = 1;

	struct udt_table_provider *pv = (void *)(base + prov_off);
	pv->name = str_put(&st, provider);
	pv->first_probe = 0;
	pv->probe_cnt = (uint32_t)probe_cnt;
	/* no stability attributes given: Unstable/Unstable/Common, as DTrace gives them */
	for (int w = 0; w < UDT_ATTR_CNT; w++) {
		pv->attr[w][0] = 4;
		pv->attr[w][1] = 4;
		pv->attr[w][2] = 5;
	}

	struct udt_table_arg *args = (void *)(base + arg_off);
	uint32_t *funcs = (void *)(base + func_off);
	for (size_t i = 0; i < probe_cnt; i++) {
		const struct rt_tprobe *p = &probes[i];
		struct udt_table_probe *r = (void *)(base + probe_off + i * sizeof(*r));

		r->sem_rel = (int64_t)((uintptr_t)p->sem - (uintptr_t)&r->sem_rel);
		r->provider = 0;
		r->name = str_put(&st, p->name);
		r->module = str_put(&st, p->mod);
		r->first_narg = narg;
		for (uint32_t a = 0; a < p->narg_cnt; a++)
			put_arg(&args[narg++], &st, &p->nargs[a]);
		r->first_xarg = narg;
		if (p->xargs) {
			for (uint32_t a = 0; a < p->xarg_cnt; a++)
				put_arg(&args[narg++], &st, &p->xargs[a]);
			r->xarg_cnt = (uint8_t)p->xarg_cnt;
			r->flags = UDT_PROBE_TRANSLATED;
		} else {
			r->first_xarg = r->first_narg;
			r->xarg_cnt = (uint8_t)p->narg_cnt;
		}
		r->narg_cnt = (uint8_t)p->narg_cnt;
		r->first_func = nfunc;
		if (p->func && *p->func) {
			funcs[nfunc++] = str_put(&st, p->func);
			r->func_cnt = 1;
		}
	}

	h->size = sizeof(*h);
	h->magic = UDT_TABLE_MAGIC;
	h->version = UDT_TABLE_VERSION;
	h->flags = sizeof(void *) == 8 ? UDT_TABLE_LP64 : 0;
	h->total_sz = (uint32_t)total;
	h->provider_off = (uint32_t)prov_off;
	h->provider_cnt = 1;
	h->provider_sz = sizeof(struct udt_table_provider);
	h->probe_off = (uint32_t)probe_off;
	h->probe_cnt = (uint32_t)probe_cnt;
	h->probe_sz = sizeof(struct udt_table_probe);
	h->arg_off = (uint32_t)arg_off;
	h->arg_cnt = narg;
	h->arg_sz = sizeof(struct udt_table_arg);
	h->func_off = (uint32_t)func_off;
	h->func_cnt = nfunc;
	h->str_off = (uint32_t)str_off;
	h->str_sz = (uint32_t)st.len;
	h->dispatch_rel = (int64_t)((uintptr_t)dispatch - (uintptr_t)&h->dispatch_rel);
	return h;
}

/* Integer type names: the name without qualifiers, its size and sign. */
static const struct {
	const char *name;
	uint8_t size, is_signed;
} ints[] = {
	{ "char", 1, 1 }, { "signed char", 1, 1 }, { "unsigned char", 1, 0 },
	{ "_Bool", 1, 0 }, { "bool", 1, 0 }, { "u_char", 1, 0 },
	{ "short", 2, 1 }, { "short int", 2, 1 }, { "signed short", 2, 1 },
	{ "unsigned short", 2, 0 }, { "unsigned short int", 2, 0 }, { "u_short", 2, 0 },
	{ "int", 4, 1 }, { "signed", 4, 1 }, { "signed int", 4, 1 }, { "unsigned", 4, 0 },
	{ "unsigned int", 4, 0 }, { "u_int", 4, 0 }, { "uint", 4, 0 },
	{ "long", sizeof(long), 1 }, { "long int", sizeof(long), 1 },
	{ "signed long", sizeof(long), 1 }, { "unsigned long", sizeof(long), 0 },
	{ "unsigned long int", sizeof(long), 0 }, { "u_long", sizeof(long), 0 },
	{ "long long", 8, 1 }, { "long long int", 8, 1 }, { "signed long long", 8, 1 },
	{ "unsigned long long", 8, 0 }, { "unsigned long long int", 8, 0 },
	{ "int8_t", 1, 1 }, { "uint8_t", 1, 0 }, { "int16_t", 2, 1 }, { "uint16_t", 2, 0 },
	{ "int32_t", 4, 1 }, { "uint32_t", 4, 0 }, { "int64_t", 8, 1 }, { "uint64_t", 8, 0 },
	{ "intptr_t", sizeof(void *), 1 }, { "uintptr_t", sizeof(void *), 0 },
	{ "size_t", sizeof(size_t), 0 }, { "ssize_t", sizeof(size_t), 1 },
	{ "ptrdiff_t", sizeof(void *), 1 }, { "off_t", 8, 1 }, { "off64_t", 8, 1 },
	{ "time_t", 8, 1 }, { "pid_t", 4, 1 }, { "uid_t", 4, 0 }, { "gid_t", 4, 0 },
	{ "id_t", 4, 0 }, { "dev_t", 8, 0 }, { "ino_t", 8, 0 }, { "mode_t", 4, 0 },
};

/* Copy type into buf without "const"/"volatile" words and with single blanks. */
static void strip_quals(const char *type, char *buf, size_t sz)
{
	size_t o = 0;
	const char *s = type;

	while (*s) {
		size_t n;

		while (*s == ' ' || *s == '\t')
			s++;
		n = strcspn(s, " \t");
		if (!n)
			break;
		if (!((n == 5 && !strncmp(s, "const", 5)) || (n == 8 && !strncmp(s, "volatile", 8)))) {
			if (o && o + 1 < sz)
				buf[o++] = ' ';
			for (size_t i = 0; i < n && o + 1 < sz; i++)
				buf[o++] = s[i];
		}
		s += n;
	}
	buf[o] = '\0';
}

void rt_ctype_classify(const char *type, int translated, struct rt_targ *ret)
{
	char buf[128];

	ret->type = type;
	ret->kind = UDT_ARG_INT;
	ret->size = 8;
	ret->is_signed = 0;
	if (!type)
		return;
	if (strpbrk(type, "*[(")) {
		ret->kind = UDT_ARG_PTR;
		ret->size = sizeof(void *);
		return;
	}
	strip_quals(type, buf, sizeof(buf));
	if (!strcmp(buf, "string")) {
		ret->kind = UDT_ARG_STRING;
		ret->size = sizeof(void *);
		return;
	}
	if (!strncmp(buf, "enum ", 5)) {
		ret->size = 4;
		ret->is_signed = 1;
		return;
	}
	for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++) {
		if (!strcmp(buf, ints[i].name)) {
			ret->size = ints[i].size;
			ret->is_signed = ints[i].is_signed;
			return;
		}
	}
	/* a structure, or a typedef the runtime cannot see through */
	if (translated)
		ret->kind = UDT_ARG_OTHER;
}
