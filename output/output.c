/* SPDX-License-Identifier: MIT */
/*
 * The output of a session (output.h): the backend chosen by -x oformat,
 * the calls the drain makes handed to it, and what every format shares:
 * DTrace's messages about drops and faults on stderr, the drop totals. A
 * session of several processes has one output: each record says its probe
 * and what names its process's addresses.
 */
#include "output/output.h"
#include "util/util.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* The formats of -x oformat, and the backend that writes each. */
static const struct {
	const char *name;
	const struct out_ops *ops;
} formats[] = {
	{ "text", &out__text },
	{ "json", &out__json },
	{ "jsonl", &out__json },
	{ "xml", &out__json },
};

int out_format_parse(const char *v, const char **ret_form, bool *ret_pretty)
{
	size_t n = strcspn(v, ",");
	const char *form = NULL;
	bool pretty = false;

	for (size_t i = 0; i < UDT__ARRAY_SIZE(formats); i++)
		if (strlen(formats[i].name) == n && !strncmp(v, formats[i].name, n))
			form = formats[i].name;
	if (!form)
		return -1;
	for (const char *m = v + n; *m;) {
		m++;
		size_t len = strcspn(m, ",");
		if (len == 6 && !strncmp(m, "pretty", 6) && strcmp(form, "text"))
			pretty = true;
		else
			return -1;
		m += len;
	}
	*ret_form = form;
	*ret_pretty = pretty;
	return 0;
}

int out_open(struct out *o, FILE *f, const struct out_opts *opts, char **ret_err)
{
	const char *form = "text";
	bool pretty = false;

	o->f = f;
	o->o = opts;
	if (opts->oformat[0] && out_format_parse(opts->oformat, &form, &pretty)) {
		*ret_err = udt__xasprintf("failed to set -x oformat: unknown format \"%s\"",
					  opts->oformat);
		return -1;
	}
	if (opts->ctfdir[0] && strcmp(form, "text")) {
		*ret_err = udt__xstrdup("failed to set -x ctfdir: the records go to a CTF trace "
					"or to -x oformat's output, not both");
		return -1;
	}
	if (opts->ctfdir[0])
		o->ops = &out__ctf;
	for (size_t i = 0; i < UDT__ARRAY_SIZE(formats) && !o->ops; i++)
		if (!strcmp(formats[i].name, form))
			o->ops = formats[i].ops;
	if (o->ops->open && o->ops->open(o, form, pretty, ret_err)) {
		o->ops = NULL;
		return -1;
	}
	return 0;
}

void out_declare(struct out *o, uint32_t epid, const struct out_probe *pr,
		 const struct out_ecb *ecb)
{
	struct out_decl d = { .epid = epid, .ecb = ecb,
			      .probe = udt__xasprintf("%s:%s:%s:%s", pr->prov, pr->mod, pr->func,
						      pr->name) };

	UDT__PUSH(o->decls, o->ndecls, o->decl_cap, d);
}

void out_start(struct out *o)
{
	if (o->started)
		return;
	o->started = true;
	if (o->ops->start)
		o->ops->start(o);
}

void out_record_begin(struct out *o, const struct out_rec *r)
{
	o->cur = *r;
	o->ops->record_begin(o, r);
}

void out_value(struct out *o, const struct out_val *v)
{
	o->ops->value(o, v);
}

void out_record_end(struct out *o)
{
	o->ops->record_end(o);
}

void out_agg(struct out *o, const struct out_aggprint *ap)
{
	o->ops->agg(o, ap);
}

/* DTrace's words for n drops of kind k on thread tid. */
static char *drop_message(enum out_drop_kind k, int32_t tid, uint64_t n)
{
	unsigned long long c = (unsigned long long)n;
	const char *s = n == 1 ? "" : "s";

	switch (k) {
	case OUT_DROP_PRINCIPAL:
		return udt__xasprintf("%llu drop%s on thread %d", c, s, (int)tid);
	case OUT_DROP_AGG:
		return udt__xasprintf("%llu aggregation drop%s on thread %d", c, s, (int)tid);
	case OUT_DROP_DYNVAR:
		return udt__xasprintf("%llu dynamic variable drop%s", c, s);
	case OUT_DROP_DYNVAR_DIRTY:
		return udt__xasprintf("%llu dynamic variable drop%s with non-empty dirty list", c, s);
	case OUT_DROP_DYNVAR_RINSE:
		return udt__xasprintf("%llu dynamic variable drop%s with non-empty rinsing list", c,
				      s);
	case OUT_DROP_SPEC:
		return udt__xasprintf("%llu speculative drop%s", c, s);
	case OUT_DROP_SPEC_BUSY:
		return udt__xasprintf("%llu failed speculation%s (available buffer(s) still busy)",
				      c, s);
	case OUT_DROP_SPEC_UNAVAIL:
		return udt__xasprintf("%llu failed speculation%s (no speculative buffer available)",
				      c, s);
	case OUT_DROP_LOST:
		break;
	}
	return udt__xasprintf("%llu record%s lost: the target could not record them", c, s);
}

/* Say count drops of kind on thread tid, in words msg (owned). */
static void say_drop(struct out *o, enum out_drop_kind kind, int32_t tid, uint64_t count,
		     char *msg)
{
	size_t slot = kind == OUT_DROP_LOST ? OUT_NDROPS - 1 : (size_t)kind;

	o->drop_totals[slot] += count;
	struct out_drop d = { .kind = kind, .tid = tid, .count = count,
			      .total = o->drop_totals[slot], .msg = msg };
	fflush(o->f);
	fprintf(stderr, "dtrace: %s\n", d.msg);
	if (o->ops->drop)
		o->ops->drop(o, &d);
	free(msg);
}

void out_drop(struct out *o, enum out_drop_kind kind, int32_t tid, uint64_t count)
{
	if (count)
		say_drop(o, kind, tid, count, drop_message(kind, tid, count));
}

void out_lost(struct out *o, int32_t tid, uint64_t count, const char *what)
{
	if (count)
		say_drop(o, OUT_DROP_LOST, tid, count,
			 udt__xasprintf("%llu record%s %s", (unsigned long long)count,
					count == 1 ? "" : "s", what));
}

static const char *fault_text(uint32_t fault, uint64_t addr, char *buf, size_t sz)
{
	switch (fault) {
	case UDT_FAULT_BADADDR:
		snprintf(buf, sz, "invalid address (0x%llx)", (unsigned long long)addr);
		return buf;
	case UDT_FAULT_DIVZERO:
		return "divide-by-zero";
	case UDT_FAULT_BADARG:
		return "invalid argument index";
	case UDT_FAULT_BADVAR:
		return "invalid variable";
	case UDT_FAULT_NOSCRATCH:
		return "out of scratch space";
	default:
		return "illegal operation";
	}
}

void out_fault(struct out *o, const struct out_fault *f)
{
	const struct out_probe *pr = &f->probe;
	char buf[64], where[32], off[32] = "";
	struct out_fault m = *f;

	if (f->action)
		snprintf(where, sizeof(where), "action #%u", f->action);
	else
		snprintf(where, sizeof(where), "predicate");
	/* " at DIF offset N", but for a fault of the action itself (as DTrace omits it) */
	if (f->fault != UDT_FAULT_ILLOP_ARG)
		snprintf(off, sizeof(off), " at DIF offset %u", f->insn);
	m.msg = udt__xasprintf("error on enabled probe ID %u (ID %u: %s:%s:%s:%s): %s in %s%s",
			       f->epid, pr->id, pr->prov, pr->mod, pr->func, pr->name,
			       fault_text(f->fault, f->addr, buf, sizeof(buf)), where, off);
	fflush(o->f);
	fprintf(stderr, "dtrace: %s\n", m.msg);
	if (o->ops->fault)
		o->ops->fault(o, &m);
	free((char *)m.msg);
}

void out_end_records(struct out *o)
{
	if (o->ops->end_records)
		o->ops->end_records(o);
}

void out_finish(struct out *o)
{
	if (!o->started || o->finished)
		return;
	o->finished = true;
	if (o->ops->finish)
		o->ops->finish(o);
}

void out_close(struct out *o)
{
	if (o->ops) {
		out_finish(o);
		if (o->ops->free)
			o->ops->free(o);
		o->ops = NULL;
	}
	for (size_t i = 0; i < o->ndecls; i++)
		free(o->decls[i].probe);
	free(o->decls);
	o->decls = NULL;
	o->ndecls = o->decl_cap = 0;
}
