/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness: a shared-memory image through the consumer's reader
 * (consumer/shm.c, drain.c, aggdata.c, spec.c, vars.c), as dtrace reads a
 * target's: the header checked, a round of reading, then the end (the last
 * read, END over the live variables, the aggregations printed).
 *
 * The image is laid out for the session of a fixed program (aggregations,
 * string and dynamic variables, speculations), and filled with the input
 * over and over: buffers, records, aggregation tables, the variables are
 * the input's. The first bytes choose the buffer policy and what is made
 * well-formed before the input is let loose on it: the header (else one of
 * its fields is the input's), the aggregation tables' layout, the dynamic
 * variable space's header.
 */
#include "consumer/internal.h"
#include "vm/agg.h"
#include "vm/vm_mem.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char script[] =
	"BEGIN { @c[1] = count(); @q = quantize(1); a[1] = 1; g = \"str\"; n = 1; s = speculation(); }\n"
	"END { printf(\"%d %s %d\\n\", a[1], g, n); printa(@c); trace(a[2]); }\n"
	"END { speculate(s); trace(n); }\n"
	"END { commit(s); }\n";

static const char *const opts[][2] = {
	{ "bufsize", "4k" }, { "aggsize", "16k" }, { "maxthreads", "3" },
	{ "dynvarsize", "16k" }, { "nspec", "2" }, { "specsize", "1k" }, { "strsize", "32" },
};

static FILE *devnull;

static uint64_t up(uint64_t v, uint64_t a)
{
	return (v + a - 1) / a * a;
}

/* The header of the session t asks for, with its offsets, and the size of the whole. */
static uint64_t layout(const struct cs_trace *t, struct udt_shm_hdr *h)
{
	uint64_t ngstrs, strsize, dynvarsize, off;

	cs__vars_sizes(t, &ngstrs, &strsize, &dynvarsize);
	memset(h, 0, sizeof(*h));
	h->size = sizeof(*h);
	h->magic = UDT_SHM_MAGIC;
	h->version = UDT_ABI_VERSION;
	h->session = t->session;
	h->bufsize = t->o.bufsize;
	h->policy = t->o.policy;
	h->tbuf_max = t->o.tbuf_max;
	h->seg0_tbufs = h->tbuf_max < UDT_SEG0_TBUFS ? h->tbuf_max : UDT_SEG0_TBUFS;
	h->aggsize = t->aggvar_cnt ? t->o.aggsize : 0;
	h->tvarsize = 8 * dl_program_var_count(t->prog, DL_VAR_THREAD);
	h->ngvars = dl_program_var_count(t->prog, DL_VAR_GLOBAL);
	h->nspec = t->spec_used ? t->o.nspec : 0;
	h->specsize = h->nspec ? t->o.specsize : 0;
	h->ring_chunk = h->bufsize / 16;
	h->flags = UDT_SHM_MB_EXPEDITED; /* (not registered: a fence, not a slow barrier) */
	h->tbuf_off = off = up(sizeof(*h), 128);
	h->data_off = off += (uint64_t)h->seg0_tbufs * sizeof(struct udt_tbuf);
	h->agg_off = off += 2ull * h->seg0_tbufs * h->bufsize;
	h->tvar_off = off += 2ull * h->seg0_tbufs * h->aggsize;
	h->gvar_off = off += h->seg0_tbufs * h->tvarsize;
	h->spec_off = off = up(off + h->ngvars * 8, 64);
	h->spec_data_off = off += h->nspec * sizeof(struct udt_spec);
	h->tlocal_off = off = up(off + h->nspec * h->specsize, 64);
	h->tlocal_sz = 64;
	h->gstr_off = off += h->seg0_tbufs * h->tlocal_sz;
	h->dyn_off = off = up(off + ngstrs * udt_str_slot(strsize), 64);
	h->dyn_sz = dynvarsize;
	h->total_sz = off + dynvarsize;
	return h->total_sz;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dl_program *p = dl_program_new(DL_LP64);
	struct cs_trace *t = NULL;
	struct udt_shm_hdr h;
	struct cs_opts o;
	char *err = NULL;

	if (size < 4)
		goto out;
	if (!devnull)
		devnull = fopen("/dev/null", "w");
	cs_opts_init(&o);
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
		if (cs_opt_set(&o, opts[i][0], opts[i][1]))
			abort();
	o.policy = data[0] % 3;
	if (dl_parse(p, "fuzz.d", script, sizeof(script) - 1, false) ||
	    cs_trace_open(&t, p, NULL, &o, devnull, &err))
		abort();
	t->session = 1;
	uint64_t total = layout(t, &h);
	uint8_t *m = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		abort();
	/* the input, over and over, after the bytes that choose */
	for (uint64_t at = 0; at < total; at += size - 3)
		memcpy(m + at, data + 3, total - at < size - 3 ? total - at : size - 3);
	memcpy(m, &h, sizeof(h));
	if (data[1] & 0x80) {
		/* one of the header's words is the input's */
		size_t w = data[2] % (sizeof(h) / 8);
		memcpy(m + w * 8, data + 3, size - 3 < 8 ? size - 3 : 8);
	}
	for (uint32_t i = 0; i < h.seg0_tbufs; i++) {
		struct udt_tbuf *tb = (struct udt_tbuf *)(void *)(m + h.tbuf_off) + i;
		if (!(data[1] & 0x01)) /* (busy producers are waited for: slow) */
			tb->busy = tb->agg_busy = 0;
		for (int k = 0; k < 2 && h.aggsize && (data[1] & 0x20); k++) {
			uint8_t *table = m + h.agg_off + (2ull * i + (uint64_t)k) * h.aggsize;
			((struct udt_agghdr *)(void *)table)->hash_bits = 0;
			(void)udt__agg_scratch(table, h.aggsize);
		}
	}
	for (uint32_t i = 0; i < h.nspec; i++)
		((struct udt_spec *)(void *)(m + h.spec_off))[i].writers = 0;
	if (h.dyn_sz && (data[1] & 0x40))
		(void)udt__dyn_init((struct udt_dynhdr *)(void *)(m + h.dyn_off), h.dyn_sz,
				    (uint32_t)dl_program_dyn_chunk(p, o.strsize));
	if (cs__shm_adopt(t, m, total) == 0) {
		cs_trace_target_gone(t);
		(void)cs_trace_stop(t);
	}
	cs_trace_close(t);
out:
	free(err);
	dl_program_free(p);
	return 0;
}
