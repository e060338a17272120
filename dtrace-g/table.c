/* SPDX-License-Identifier: MIT */
/*
 * Building the probe table blob (layout: abi/probe_table.h and
 * docs/format.md). The blob is position-independent: the only references
 * out of it, to the semaphores and to udt__dispatch, are 64-bit self-relative
 * fields listed in t->relocs for the ELF writer to relocate.
 */
#include "dtrace-g/internal.h"
#include "abi/probe_table.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

struct strtab {
	struct udt_strbuf buf;
};

/* Intern s (linear search is fine: tables hold at most a few thousand strings). */
static uint32_t str_add(struct strtab *st, const char *s)
{
	if (!*s)
		return 0;
	for (size_t off = 1; off < st->buf.len; off += strlen(st->buf.buf + off) + 1)
		if (!strcmp(st->buf.buf + off, s))
			return (uint32_t)off;
	uint32_t off = (uint32_t)st->buf.len;
	udt__sb_putn(&st->buf, s, strlen(s) + 1);
	return off;
}

static void put_arg(struct dl_program *p, struct udt_strbuf *args, struct strtab *st,
		    const struct dl_param *a, uint8_t mapping)
{
	struct udt_table_arg r = { 0 };
	struct dl_qtype res = dl_type_resolve(a->type);

	r.type = str_add(st, dl_type_cdecl(p, a->type, NULL));
	r.name = str_add(st, a->name ? a->name : "");
	r.mapping = mapping;
	switch (res.t->kind) {
	case DL_INT:
	case DL_ENUM:
		r.kind = UDT_ARG_INT;
		r.is_signed = res.t->is_signed;
		r.size = (uint8_t)res.t->size;
		break;
	case DL_STRING:
		r.kind = UDT_ARG_STRING;
		r.size = dl_program_model(p) == DL_LP64 ? 8 : 4;
		break;
	case DL_PTR:
	case DL_ARRAY:
	case DL_FUNC:
		r.kind = UDT_ARG_PTR;
		r.size = dl_program_model(p) == DL_LP64 ? 8 : 4;
		break;
	default:
		r.kind = UDT_ARG_OTHER;
		r.size = res.t->size <= 255 ? (uint8_t)res.t->size : 0;
		break;
	}
	udt__sb_putn(args, &r, sizeof(r));
}

static void pad8(struct udt_strbuf *b)
{
	while (b->len % 8)
		udt__sb_putc(b, '\0');
}

void dg_table_build(struct dl_program *p, const struct dg_probes *pp, struct dg_table *t)
{
	struct udt_strbuf provs = { 0 }, probes = { 0 }, args = { 0 }, funcs = { 0 };
	struct strtab st = { { 0 } };
	struct udt_table_hdr h = { 0 };
	uint32_t arg_cnt = 0, func_cnt = 0;
	size_t pi = 0;

	memset(t, 0, sizeof(*t));
	udt__sb_putc(&st.buf, '\0');

	for (size_t i = 0; i < pp->provider_cnt; i++) {
		const struct dl_provider *pv = pp->providers[i];
		struct udt_table_provider r = { 0 };

		r.name = str_add(&st, pv->name);
		r.first_probe = (uint32_t)pi;
		r.probe_cnt = (uint32_t)pv->probe_cnt;
		for (int w = 0; w < UDT_ATTR_CNT; w++) {
			r.attr[w][0] = pv->attr[w].name_stab;
			r.attr[w][1] = pv->attr[w].data_stab;
			r.attr[w][2] = pv->attr[w].dep_class;
		}
		udt__sb_putn(&provs, &r, sizeof(r));
		pi += pv->probe_cnt;
	}
	for (size_t i = 0; i < pp->cnt; i++) {
		const struct dl_probe *pr = pp->v[i];
		struct udt_table_probe r = { 0 };

		for (size_t k = 0; k < pp->provider_cnt; k++)
			if (pp->providers[k] == pr->provider)
				r.provider = (uint32_t)k;
		r.name = str_add(&st, pr->name);
		r.first_narg = arg_cnt;
		for (size_t a = 0; a < pr->narg_cnt; a++, arg_cnt++)
			put_arg(p, &args, &st, &pr->nargs[a], (uint8_t)a);
		r.first_xarg = arg_cnt;
		for (size_t a = 0; a < pr->xarg_cnt; a++, arg_cnt++)
			put_arg(p, &args, &st, &pr->xargs[a], pr->mapping[a]);
		r.narg_cnt = (uint8_t)pr->narg_cnt;
		r.xarg_cnt = (uint8_t)pr->xarg_cnt;
		r.flags = pr->translated ? UDT_PROBE_TRANSLATED : 0;
		r.first_func = func_cnt;
		r.func_cnt = (uint32_t)pp->func_cnt[i];
		for (size_t f = 0; f < pp->func_cnt[i]; f++, func_cnt++) {
			uint32_t off = str_add(&st, pp->funcs[i][f]);
			udt__sb_putn(&funcs, &off, sizeof(off));
		}
		udt__sb_putn(&probes, &r, UDT_TABLE_PROBE_SZ_V1); /* no module: the object's */
	}

	/* Lay out: header, providers, probes, args, funcs, strings; 8-aligned parts. */
	h.size = sizeof(h);
	h.magic = UDT_TABLE_MAGIC;
	h.version = UDT_TABLE_VERSION;
	h.flags = dl_program_model(p) == DL_LP64 ? UDT_TABLE_LP64 : 0;
	h.provider_sz = sizeof(struct udt_table_provider);
	h.probe_sz = UDT_TABLE_PROBE_SZ_V1;
	h.arg_sz = sizeof(struct udt_table_arg);
	h.provider_cnt = (uint32_t)pp->provider_cnt;
	h.probe_cnt = (uint32_t)pp->cnt;
	h.arg_cnt = arg_cnt;
	h.func_cnt = func_cnt;

	udt__sb_putn(&t->blob, &h, sizeof(h));
	pad8(&t->blob);
	h.provider_off = (uint32_t)t->blob.len;
	udt__sb_putn(&t->blob, provs.buf ? provs.buf : "", provs.len);
	pad8(&t->blob);
	h.probe_off = (uint32_t)t->blob.len;
	for (size_t i = 0; i < pp->cnt; i++) {
		struct dg_reloc rel = {
			t->blob.len + i * UDT_TABLE_PROBE_SZ_V1 +
				offsetof(struct udt_table_probe, sem_rel),
			DG_RELOC_SEMAPHORE, i
		};
		UDT__PUSH(t->relocs, t->reloc_cnt, t->reloc_cap, rel);
	}
	udt__sb_putn(&t->blob, probes.buf ? probes.buf : "", probes.len);
	pad8(&t->blob);
	h.arg_off = (uint32_t)t->blob.len;
	udt__sb_putn(&t->blob, args.buf ? args.buf : "", args.len);
	pad8(&t->blob);
	h.func_off = (uint32_t)t->blob.len;
	udt__sb_putn(&t->blob, funcs.buf ? funcs.buf : "", funcs.len);
	pad8(&t->blob);
	h.str_off = (uint32_t)t->blob.len;
	h.str_sz = (uint32_t)st.buf.len;
	udt__sb_putn(&t->blob, st.buf.buf, st.buf.len);
	pad8(&t->blob);
	h.total_sz = (uint32_t)t->blob.len;
	memcpy(t->blob.buf, &h, sizeof(h));

	struct dg_reloc drel = { offsetof(struct udt_table_hdr, dispatch_rel), DG_RELOC_DISPATCH, 0 };
	UDT__PUSH(t->relocs, t->reloc_cnt, t->reloc_cap, drel);

	udt__sb_reset(&provs);
	udt__sb_reset(&probes);
	udt__sb_reset(&args);
	udt__sb_reset(&funcs);
	udt__sb_reset(&st.buf);
}

void dg_table_free(struct dg_table *t)
{
	udt__sb_reset(&t->blob);
	free(t->relocs);
	memset(t, 0, sizeof(*t));
}
