/* SPDX-License-Identifier: MIT */
/*
 * Output (output.h): the session's backend chosen by -x oformat, the calls
 * the drain makes handed to it, and what every format shares: DTrace's
 * messages about drops and faults on stderr, the drop totals. A session of
 * several processes (group.c) has one output, its lead's: a process's
 * records reach the lead's backend with the process's own trace (its
 * probes, its symbols).
 */
#include "consumer/internal.h"
#include "util/util.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* The formats of -x oformat, and the backend that writes each. */
static const struct {
	const char *name;
	const struct cs_out_ops *ops;
} formats[] = {
	{ "text", &cs__out_text },
	{ "json", &cs__out_json },
	{ "jsonl", &cs__out_json },
	{ "xml", &cs__out_json },
};

int cs_out_format_parse(const char *v, const char **ret_form, bool *ret_pretty)
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

int cs__out_open(struct cs_trace *t, char **ret_err)
{
	const char *form = "text";
	bool pretty = false;

	if (t->o.oformat[0] && cs_out_format_parse(t->o.oformat, &form, &pretty)) {
		*ret_err = udt__xasprintf("failed to set -x oformat: unknown format \"%s\"",
					  t->o.oformat);
		return -1;
	}
	if (t->o.ctfdir[0] && strcmp(form, "text")) {
		*ret_err = udt__xstrdup("failed to set -x ctfdir: the records go to a CTF trace "
					"or to -x oformat's output, not both");
		return -1;
	}
	if (t->o.ctfdir[0])
		t->out_ops = &cs__out_ctf;
	for (size_t i = 0; i < UDT__ARRAY_SIZE(formats) && !t->out_ops; i++)
		if (!strcmp(formats[i].name, form))
			t->out_ops = formats[i].ops;
	if (t->out_ops->open && t->out_ops->open(t, form, pretty, ret_err)) {
		t->out_ops = NULL;
		return -1;
	}
	return 0;
}

void cs__out_start(struct cs_trace *t)
{
	if (t->out_started)
		return;
	t->out_started = true;
	if (t->out_ops->start)
		t->out_ops->start(t);
}

void cs__out_record_begin(struct cs_trace *t, const struct cs_ecb *e, const struct cs_recinfo *ri)
{
	cs__lead(t)->out_ops->record_begin(t, e, ri);
}

void cs__out_value(struct cs_trace *t, const struct cs_outval *v)
{
	cs__lead(t)->out_ops->value(t, v);
}

void cs__out_record_end(struct cs_trace *t)
{
	cs__lead(t)->out_ops->record_end(t);
}

void cs__out_agg(struct cs_trace *t, const struct cs_aggprint *ap)
{
	cs__lead(t)->out_ops->agg(t, ap);
}

/* DTrace's words for n drops of kind k on thread tid. */
static char *drop_message(enum cs_drop_kind k, int32_t tid, uint64_t n)
{
	unsigned long long c = (unsigned long long)n;
	const char *s = n == 1 ? "" : "s";

	switch (k) {
	case CS_DROP_PRINCIPAL:
		return udt__xasprintf("%llu drop%s on thread %d", c, s, (int)tid);
	case CS_DROP_AGG:
		return udt__xasprintf("%llu aggregation drop%s on thread %d", c, s, (int)tid);
	case CS_DROP_DYNVAR:
		return udt__xasprintf("%llu dynamic variable drop%s", c, s);
	case CS_DROP_DYNVAR_DIRTY:
		return udt__xasprintf("%llu dynamic variable drop%s with non-empty dirty list", c, s);
	case CS_DROP_DYNVAR_RINSE:
		return udt__xasprintf("%llu dynamic variable drop%s with non-empty rinsing list", c,
				      s);
	case CS_DROP_SPEC:
		return udt__xasprintf("%llu speculative drop%s", c, s);
	case CS_DROP_SPEC_BUSY:
		return udt__xasprintf("%llu failed speculation%s (available buffer(s) still busy)",
				      c, s);
	case CS_DROP_SPEC_UNAVAIL:
		return udt__xasprintf("%llu failed speculation%s (no speculative buffer available)",
				      c, s);
	case CS_DROP_LOST:
		break;
	}
	return udt__xasprintf("%llu record%s lost: the target could not record them", c, s);
}

/* Say count drops of kind on thread tid, in words msg (owned). */
static void out_drop(struct cs_trace *t, enum cs_drop_kind kind, int32_t tid, uint64_t count,
		     char *msg)
{
	size_t slot = kind == CS_DROP_LOST ? CS_OUT_NDROPS - 1 : (size_t)kind;
	struct cs_trace *lead = cs__lead(t);

	lead->drop_totals[slot] += count;
	struct cs_drop d = { .kind = kind, .tid = tid, .count = count,
			     .total = lead->drop_totals[slot], .msg = msg };
	fflush(t->out);
	fprintf(stderr, "dtrace: %s\n", d.msg);
	if (lead->out_ops->drop)
		lead->out_ops->drop(t, &d);
	free(msg);
}

void cs__out_drop(struct cs_trace *t, enum cs_drop_kind kind, int32_t tid, uint64_t count)
{
	if (count)
		out_drop(t, kind, tid, count, drop_message(kind, tid, count));
}

void cs__out_lost(struct cs_trace *t, int32_t tid, uint64_t count, const char *what)
{
	if (count)
		out_drop(t, CS_DROP_LOST, tid, count,
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

void cs__out_fault(struct cs_trace *t, const struct cs_fault *f)
{
	const struct cs_probe *pr = f->ecb->probe;
	char buf[64], where[32], off[32] = "";
	struct cs_fault m = *f;

	if (f->action)
		snprintf(where, sizeof(where), "action #%u", f->action);
	else
		snprintf(where, sizeof(where), "predicate");
	/* " at DIF offset N", but for a fault of the action itself (as DTrace omits it) */
	if (f->fault != UDT_FAULT_ILLOP_ARG)
		snprintf(off, sizeof(off), " at DIF offset %u", f->insn);
	m.msg = udt__xasprintf("error on enabled probe ID %u (ID %u: %s:%s:%s:%s): %s in %s%s",
			       f->ecb->epid, pr->id, pr->prov, pr->mod, pr->func, pr->name,
			       fault_text(f->fault, f->addr, buf, sizeof(buf)), where, off);
	fflush(t->out);
	fprintf(stderr, "dtrace: %s\n", m.msg);
	if (cs__lead(t)->out_ops->fault)
		cs__lead(t)->out_ops->fault(t, &m);
	free((char *)m.msg);
}

void cs__out_end_records(struct cs_trace *t)
{
	if (t->out_ops->end_records)
		t->out_ops->end_records(t);
}

void cs__out_finish(struct cs_trace *t)
{
	if (!t->out_started || t->out_finished)
		return;
	t->out_finished = true;
	if (t->out_ops->finish)
		t->out_ops->finish(t);
}

void cs__out_close(struct cs_trace *t)
{
	if (!t->out_ops)
		return;
	cs__out_finish(t);
	if (t->out_ops->free)
		t->out_ops->free(t);
	t->out_ops = NULL;
}
