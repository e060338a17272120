/* SPDX-License-Identifier: MIT */
/*
 * What the output sees of an ECB (output/output.h): its records' fields,
 * one for each action that shows a value, in the order the drain hands the
 * values over (drain.c's consume_ecb_record()). A printf() is a field
 * followed by one for each of its values; the values of other actions
 * (trunc()'s count, tracemem()'s dynamic size, setopt()'s) show nothing.
 */
#include "consumer/internal.h"
#include "util/util.h"

#include <stdlib.h>

struct out_probe cs__out_probe(const struct pb_probe *pr)
{
	return (struct out_probe){ .id = pr->id, .prov = pr->prov, .mod = pr->mod,
				   .func = pr->func, .name = pr->name };
}

static const char *addr_name(uint8_t sym)
{
	return sym == OUT_ADDR_UADDR ? "uaddr" : sym == OUT_ADDR_USYM ? "usym" : "umod";
}

/* The field of value action a (trace(), or a value of printf() when in_printf). */
static struct out_field value_field(const struct cs_action *a, bool in_printf)
{
	struct out_field f = { .name = dl_node_name(a->expr), .size = a->size,
			       .is_signed = a->is_signed, .is_float = a->is_float,
			       .in_printf = in_printf, .addr = a->sym };

	if (a->kind == CS_ACT_USTACK) {
		f.kind = OUT_F_STACK;
		f.name = "ustack";
		f.nframes = a->nframes;
	} else if (a->kind == CS_ACT_TRACE_STR || (a->kind == CS_ACT_TRACE_CONST && a->is_str)) {
		f.kind = OUT_F_STR;
	} else if (a->sym) {
		f.kind = OUT_F_ADDR;
		if (!in_printf)
			f.name = addr_name(a->sym);
	} else {
		f.kind = OUT_F_INT;
	}
	return f;
}

void cs__ecb_describe(struct cs_trace *t, struct cs_ecb *e)
{
	struct out_ecb *d = udt__xcalloc(1, sizeof(*d));
	size_t cap = 0;

	for (size_t k = 0; k < e->act_cnt; k++)
		e->acts[k].field = -1;
	for (size_t k = 0; k < e->act_cnt; k++) {
		struct cs_action *a = &e->acts[k];
		struct out_field f = { 0 };

		if (a->pf_value)
			continue; /* a value of the action before it */
		if (a->is_print) {
			f = (struct out_field){ .kind = OUT_F_PRINT, .name = dl_node_name(a->expr),
						.size = a->size, .type = a->print_type,
						.prog = t->prog };
			if (!f.name)
				f.name = "print";
		} else if (a->kind == CS_ACT_PRINTF) {
			f = (struct out_field){ .kind = OUT_F_PRINTF, .name = "printf", .pf = a->pf };
			for (size_t i = 0; i < a->pf_nvals && k + 1 + i < e->act_cnt; i++)
				f.nvals++;
		} else if (a->kind == CS_ACT_TRACEMEM) {
			f = (struct out_field){ .kind = OUT_F_MEM, .name = "tracemem", .size = a->size };
		} else if (a->kind == CS_ACT_USTACK || a->kind == CS_ACT_TRACE_STR ||
			   a->kind == CS_ACT_TRACE || a->kind == CS_ACT_TRACE_CONST) {
			f = value_field(a, false);
		} else {
			continue; /* (records nothing to show: aggregations, system(), exit()...) */
		}
		a->field = (int32_t)d->nfields;
		UDT__PUSH(d->fields, d->nfields, cap, f);
		for (size_t i = 0; f.kind == OUT_F_PRINTF && i < f.nvals; i++) {
			struct cs_action *v = &e->acts[k + 1 + i];
			struct out_field vf = value_field(v, true);
			v->field = (int32_t)d->nfields;
			UDT__PUSH(d->fields, d->nfields, cap, vf);
		}
	}
	e->out = d;
}

void cs__out_declare(struct cs_trace *t)
{
	struct out *o = cs__out(t);

	if (t != cs__lead(t))
		return; /* (the enablings of the lead, which the output describes) */
	for (size_t i = o->ndecls; i < t->ecb_cnt; i++) {
		struct out_probe pr = cs__out_probe(t->ecbs[i].probe);
		out_declare(o, t->ecbs[i].epid, &pr, t->ecbs[i].out);
	}
}
