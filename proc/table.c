/* SPDX-License-Identifier: MIT */
/* Checking and reading probe tables; see proc/table.h. */
#include "proc/table.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

static bool range_ok(size_t total, uint64_t off, uint64_t cnt, uint64_t rec_sz)
{
	return off <= total && cnt <= (total - off) / (rec_sz ? rec_sz : 1);
}

int pr_table_open(struct pr_table *t, const void *buf, size_t sz)
{
	struct udt_table_hdr h;
	uint32_t hsz;

	memset(t, 0, sizeof(*t));
	/* the records are read in place: the buffer is 8-aligned (a malloc'ed copy) */
	if ((uintptr_t)buf % 8 || sz < sizeof(h))
		return -EINVAL; /* (every version's header is at least this one) */
	memcpy(&h, buf, sizeof(h));
	hsz = h.size;
	if (h.magic != UDT_TABLE_MAGIC)
		return -EINVAL;
	if (h.version != UDT_TABLE_VERSION)
		return -EPROTONOSUPPORT;
	if (hsz < sizeof(h) || h.total_sz > sz || h.total_sz < hsz)
		return -EINVAL;
	/* each record as aligned as its structure: the offsets below are checked alike */
	if (h.provider_sz < sizeof(struct udt_table_provider) ||
	    h.provider_sz % _Alignof(struct udt_table_provider) ||
	    h.probe_sz < UDT_TABLE_PROBE_SZ_V1 || h.probe_sz % _Alignof(struct udt_table_probe) ||
	    h.arg_sz < sizeof(struct udt_table_arg) || h.arg_sz % _Alignof(struct udt_table_arg))
		return -EINVAL;
	if (!range_ok(h.total_sz, h.provider_off, h.provider_cnt, h.provider_sz) ||
	    !range_ok(h.total_sz, h.probe_off, h.probe_cnt, h.probe_sz) ||
	    !range_ok(h.total_sz, h.arg_off, h.arg_cnt, h.arg_sz) ||
	    !range_ok(h.total_sz, h.func_off, h.func_cnt, sizeof(uint32_t)) ||
	    !range_ok(h.total_sz, h.str_off, h.str_sz, 1) || h.str_sz == 0)
		return -EINVAL;
	/* the string table ends in NUL, so every string within it is terminated */
	if (((const uint8_t *)buf)[h.str_off + h.str_sz - 1] != '\0')
		return -EINVAL;
	if (h.probe_off % _Alignof(struct udt_table_probe) ||
	    h.provider_off % _Alignof(struct udt_table_provider) ||
	    h.arg_off % _Alignof(struct udt_table_arg) || h.func_off % _Alignof(uint32_t))
		return -EINVAL;
	t->base = buf;
	t->sz = h.total_sz;
	t->hdr = h;
	for (uint32_t i = 0; i < h.provider_cnt; i++) {
		const struct udt_table_provider *pv = pr_table_provider(t, i);
		if (pv->first_probe > h.probe_cnt || pv->probe_cnt > h.probe_cnt - pv->first_probe ||
		    pv->name >= h.str_sz)
			goto bad;
	}
	for (uint32_t i = 0; i < h.probe_cnt; i++) {
		const struct udt_table_probe *pr = pr_table_probe(t, i);
		if (pr->provider >= h.provider_cnt || pr->name >= h.str_sz ||
		    pr->first_narg > h.arg_cnt || pr->narg_cnt > h.arg_cnt - pr->first_narg ||
		    pr->first_xarg > h.arg_cnt || pr->xarg_cnt > h.arg_cnt - pr->first_xarg ||
		    pr->first_func > h.func_cnt || pr->func_cnt > h.func_cnt - pr->first_func)
			goto bad;
		for (uint32_t a = 0; a < pr->xarg_cnt; a++)
			if (pr_table_arg(t, pr->first_xarg + a)->mapping >= pr->narg_cnt &&
			    pr->narg_cnt)
				goto bad;
	}
	return 0;
bad:
	memset(t, 0, sizeof(*t));
	return -EINVAL;
}

const struct udt_table_provider *pr_table_provider(const struct pr_table *t, uint32_t i)
{
	return (const void *)(t->base + t->hdr.provider_off + (size_t)i * t->hdr.provider_sz);
}

const struct udt_table_probe *pr_table_probe(const struct pr_table *t, uint32_t i)
{
	return (const void *)(t->base + t->hdr.probe_off + (size_t)i * t->hdr.probe_sz);
}

size_t pr_table_probe_off(const struct pr_table *t, uint32_t i)
{
	return t->hdr.probe_off + (size_t)i * t->hdr.probe_sz +
	       offsetof(struct udt_table_probe, sem_rel);
}

const struct udt_table_arg *pr_table_arg(const struct pr_table *t, uint32_t i)
{
	return (const void *)(t->base + t->hdr.arg_off + (size_t)i * t->hdr.arg_sz);
}

const char *pr_table_str(const struct pr_table *t, uint32_t off)
{
	return off < t->hdr.str_sz ? (const char *)t->base + t->hdr.str_off + off : "";
}

const char *pr_table_probe_module(const struct pr_table *t, uint32_t i)
{
	uint32_t off;

	if (t->hdr.probe_sz < offsetof(struct udt_table_probe, module) + sizeof(off))
		return ""; /* a -G table: the object is the module */
	memcpy(&off, t->base + t->hdr.probe_off + (size_t)i * t->hdr.probe_sz +
			     offsetof(struct udt_table_probe, module),
	       sizeof(off));
	return pr_table_str(t, off);
}

const char *pr_table_func(const struct pr_table *t, uint32_t i)
{
	uint32_t off;

	memcpy(&off, t->base + t->hdr.func_off + (size_t)i * sizeof(uint32_t), sizeof(off));
	return pr_table_str(t, off);
}
