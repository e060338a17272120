/* SPDX-License-Identifier: MIT */
/*
 * The text backend: records, printa() and the aggregations at exit as
 * dtrace(1) prints them (illumos's dt_consume.c and dt_aggregate.c are the
 * model, byte for byte: the tests compare this output with DTrace's).
 *
 *	CPU     ID                    FUNCTION:NAME
 *	  0      1                           :BEGIN        42  hello
 *
 * Without -q each record starts with its CPU, probe ID and FUNCTION:NAME
 * (under a heading printed once) and ends with a newline; trace() pads each
 * value to a width of its size. With -q only what the actions print is
 * printed. A field's kind prints through one function each below (print()'s
 * types through print.c, printf() through printf.c), so that a new kind of
 * field is one more case in text_value().
 */
#include "output/output.h"
#include "util/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct text {
	bool heading;              /* "CPU ID FUNCTION:NAME" printed */
	/* -F: the depth of the call tree, and the record before (dt_consume.c's) */
	int indent;
	uint32_t last_epid, last_probe;
};

static struct text *text_of(struct out *o)
{
	if (!o->priv)
		o->priv = udt__xcalloc(1, sizeof(struct text));
	return o->priv;
}

/* -- Records ----------------------------------------------------------------------------------- */

/* Is name "entry" or "...-entry" (with word): a probe of a function's flow, as -F sees it? */
static bool flow_name(const char *name, const char *word)
{
	size_t n = strlen(name), w = strlen(word);

	return n >= w && !strcmp(name + n - w, word) && (n == w || name[n - w - 1] == '-');
}

/*
 * -F (DTrace's flowindent, dt_consume.c's dt_flowindent()): each record
 * starts with its CPU and its function, indented two spaces a level of the
 * calls its entry and return probes trace (" -> func", " <- func"; any other
 * probe "| func:name"), under "CPU FUNCTION". As DTrace's, even with -q; a
 * second clause's record of the entry probe just printed is not a level
 * more.
 */
static void flow_begin(struct out *o, struct text *tx, const struct out_rec *r)
{
	char name[1024];
	bool entry = flow_name(r->probe.name, "entry"), ret = flow_name(r->probe.name, "return");

	if (!tx->heading) {
		fprintf(o->f, "%3s %-41s\n", "CPU", "FUNCTION");
		tx->heading = true;
	}
	if (entry && tx->last_epid && r->epid != tx->last_epid && r->probe.id == tx->last_probe)
		entry = false;
	if (ret && tx->indent > 0)
		tx->indent -= 2;
	if (entry || ret)
		snprintf(name, sizeof(name), "%*s%s%s", tx->indent, "", entry ? " -> " : " <- ",
			 r->probe.func);
	else
		snprintf(name, sizeof(name), "%*s| %s:%s", tx->indent, "", r->probe.func,
			 r->probe.name);
	fprintf(o->f, "%3u %-41s ", r->cpu, name);
	if (entry)
		tx->indent += 2;
	tx->last_epid = r->epid;
	tx->last_probe = r->probe.id;
}

static void text_record_begin(struct out *o, const struct out_rec *r)
{
	struct text *tx = text_of(o);
	char name[512];

	if (o->o->flowindent) {
		flow_begin(o, tx, r);
		return;
	}
	if (o->o->quiet)
		return;
	if (!tx->heading) {
		fprintf(o->f, "%3s %6s %32s\n", "CPU", "ID", "FUNCTION:NAME");
		tx->heading = true;
	}
	snprintf(name, sizeof(name), "%s:%s", r->probe.func, r->probe.name);
	fprintf(o->f, "%3u %6u %32s ", r->cpu, r->probe.id, name);
}

static void text_record_end(struct out *o)
{
	if (!o->o->quiet)
		fprintf(o->f, "\n");
}

/*
 * trace() of an integer, formatted by its size exactly as DTrace does: 1- and
 * 2-byte values print as unsigned, 4- and 8-byte values as signed, whatever
 * the D type's sign (trace((char)-1) prints 255 under DTrace too).
 */
static void print_int(struct out *o, unsigned size, uint64_t v)
{
	bool q = o->o->quiet;

	switch (size) {
	case 1:
		fprintf(o->f, q ? "%d" : " %3d", (int)(uint8_t)v);
		break;
	case 2:
		fprintf(o->f, q ? "%d" : " %5d", (int)(uint16_t)v);
		break;
	case 4:
		fprintf(o->f, q ? "%d" : " %8d", (int)(uint32_t)v);
		break;
	default:
		fprintf(o->f, q ? "%lld" : " %16lld", (long long)v);
		break;
	}
}

/*
 * As DTrace's dt_print_bytes() prints tracemem()'s bytes: a heading of
 * offsets within a row, then rows of 16 bytes, each its offset, the bytes in
 * hex and as characters ('.' for those outside ' '...'~'), after a newline.
 */
static void print_bytes(FILE *out, const uint8_t *bytes, uint64_t size)
{
	fprintf(out, "\n%5s      ", "");
	for (int i = 0; i < 16; i++)
		fprintf(out, "  %c", "0123456789abcdef"[i]);
	fprintf(out, "  0123456789abcdef\n");
	for (uint64_t i = 0; i < size; i += 16) {
		uint64_t j;
		fprintf(out, "%5s%5llx:", "", (unsigned long long)i);
		for (j = i; j < i + 16 && j < size; j++)
			fprintf(out, " %02x", bytes[j]);
		for (; j % 16; j++)
			fputs("   ", out);
		fputs("  ", out);
		for (j = i; j < i + 16 && j < size; j++)
			fputc(bytes[j] < ' ' || bytes[j] > '~' ? '.' : bytes[j], out);
		fputc('\n', out);
	}
}

/*
 * trace() of a string: padded, or with -x rawbytes the bytes recorded, as
 * tracemem() prints them (a constant's: the strsize bytes DTrace records
 * for it, size of them).
 */
static void print_str(struct out *o, const struct out_val *v)
{
	if (!o->o->rawbytes) {
		fprintf(o->f, o->o->quiet ? "%s" : "  %-33s", v->s);
	} else if (v->bytes) {
		print_bytes(o->f, v->bytes, v->size);
	} else if (v->size) {
		uint8_t *bytes = udt__xcalloc(1, v->size);
		size_t n = strlen(v->s);
		memcpy(bytes, v->s, n < v->size ? n : v->size - 1);
		print_bytes(o->f, bytes, v->size);
		free(bytes);
	}
}

/* ustack() (a newline, then a frame a line), or an address's name as dt_print_usym() pads it. */
static void print_stack(struct out *o, const struct out_val *v)
{
	if (v->f->kind == OUT_F_STACK) {
		char *s = out_stack_text(o->cur.namer, v->bytes, v->f->nframes, o->o->stackindent);
		fputs(s, o->f);
		free(s);
	} else {
		fprintf(o->f, "  %-50s", out_name(o->cur.namer, v->v, v->f->addr, false));
	}
}

static void text_value(struct out *o, const struct out_val *v)
{
	switch (v->f->kind) {
	case OUT_F_INT:
		print_int(o, v->f->size, v->v);
		break;
	case OUT_F_STR:
		print_str(o, v);
		break;
	case OUT_F_PRINTF:
		out_printf_print(o->f, v->f->pf, v->args, v->nargs,
				 v->f->pf->names_addrs ? o->cur.namer : NULL);
		break;
	case OUT_F_STACK:
	case OUT_F_ADDR:
		print_stack(o, v);
		break;
	case OUT_F_MEM:
		print_bytes(o->f, v->bytes, v->size);
		break;
	case OUT_F_PRINT:
		out__print_value(o->f, v);
		break;
	}
}

/* -- Aggregations, as dt_consume.c prints them ---------------------------------------------- */

static void print_key(FILE *out, const struct out_aggkey *k, const struct out_aggkv *v)
{
	if (k->sym == OUT_ADDR_USTACK) {
		fputs(v->s, out); /* a newline, then a frame a line (stack.c) */
		return;
	}
	if (k->is_str) {
		fprintf(out, "  %-50s", v->s);
		return;
	}
	switch (k->size) {
	case 1:
		fprintf(out, " %3d", (int)(uint8_t)v->v);
		break;
	case 2:
		fprintf(out, " %5d", (int)(uint16_t)v->v);
		break;
	case 4:
		fprintf(out, " %8d", (int)(uint32_t)v->v);
		break;
	default:
		fprintf(out, " %16lld", (long long)v->v);
		break;
	}
}

/* One row's bar: 40 columns of '@' for all of total, half each way when counts have both signs. */
static void print_bar(FILE *out, int64_t val, int64_t normal, long double total, bool positives,
		      bool negatives)
{
	static const char ats[] = "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@";
	static const char spaces[] = "                                        ";
	unsigned len = 40, depth;

	if (!negatives) {
		depth = positives ? (unsigned)(fabsl((long double)val) * len / total + 0.5) : 0;
		fprintf(out, "|%s%s %-9lld\n", ats + len - depth, spaces + depth, (long long)(val / normal));
		return;
	}
	if (!positives) {
		depth = (unsigned)(fabsl((long double)val) * len / total + 0.5);
		fprintf(out, "%s%s| %-9lld\n", spaces + depth, ats + len - depth, (long long)(val / normal));
		return;
	}
	len /= 2;
	depth = (unsigned)(fabsl((long double)val) * len / total + 0.5);
	if (val <= 0)
		fprintf(out, "%s%s|%*s %-9lld\n", spaces + 40 - len + depth, ats + 40 - depth,
			(int)len, "", (long long)(val / normal));
	else
		fprintf(out, "%20s|%s%s %-9lld\n", "", ats + 40 - depth, spaces + 40 - len + depth,
			(long long)(val / normal));
}

/* A distribution, from one bucket below the first used to one above the last. */
static void print_distribution(FILE *out, const struct out_aggent *e)
{
	const int64_t *b = e->val;
	int64_t normal = e->var->normal ? e->var->normal : 1;
	int n, first, last;
	int64_t *lo;
	bool positives = false, negatives = false;
	long double total = 0;

	out_agg_dist_range(e, &n, &first, &last, &lo);
	for (int i = first; i <= last; i++) {
		positives |= b[i] > 0;
		negatives |= b[i] < 0;
		total += fabsl((long double)b[i]);
	}
	fprintf(out, "\n%16s %41s %-9s\n", "value", "------------- Distribution -------------",
		"count");
	for (int i = first; i <= last; i++) {
		char c[64];
		if (e->var->func != UDT_AGG_QUANTIZE && (i == 0 || i == n - 1)) {
			snprintf(c, sizeof(c), "%s %lld", i ? ">=" : "<", (long long)lo[i]);
			fprintf(out, "%16s ", c);
		} else {
			fprintf(out, "%16lld ", (long long)lo[i]);
		}
		print_bar(out, b[i], normal, total, positives, negatives);
	}
	free(lo);
}

static void print_value(FILE *out, const struct out_aggent *e)
{
	if (out_agg_is_dist(e->var))
		print_distribution(out, e);
	else if (e->var->func == UDT_AGG_STDDEV)
		fprintf(out, " %16llu", (unsigned long long)out_agg_value(e));
	else
		fprintf(out, " %16lld", (long long)out_agg_value(e));
}

/* One entry as dt_print_aggs prints it: each key, the value, a newline. */
static void print_entry(FILE *out, const struct out_aggent *e)
{
	for (size_t k = 0; k < e->var->nkeys; k++)
		print_key(out, &e->var->keys[k], &e->keys[k]);
	print_value(out, e);
	fputc('\n', out);
}

/* A folded line and its value (-x aggfmt=folded). */
struct folded {
	char *text;
	int64_t val;
};

static int folded_cmp(const void *a, const void *b)
{
	return strcmp(((const struct folded *)a)->text, ((const struct folded *)b)->text);
}

/*
 * The n entries at v (of one variable keyed by a stack) as FlameGraph's
 * folded lines, "frame;frame;... value", ordered by their text; entries
 * that fold to the same line (stacks that differ only in offsets) are one.
 */
static void print_folded(FILE *out, const struct out_aggent *const *v, size_t n)
{
	const struct out_aggvar *var = n ? v[0]->var : NULL;
	int64_t normal = var && var->normal ? var->normal : 1;
	struct folded *f = udt__xcalloc(n + 1, sizeof(*f));
	const char **keys = udt__xcalloc(var ? var->nkeys + 1 : 1, sizeof(*keys));
	uint64_t *ints = udt__xcalloc(var ? var->nkeys + 1 : 1, sizeof(*ints));

	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < var->nkeys; k++) {
			keys[k] = v[i]->keys[k].s;
			ints[k] = v[i]->keys[k].v;
		}
		f[i] = (struct folded){ out_agg_fold(var, keys, ints), v[i]->val[0] };
	}
	if (n > 1)
		qsort(f, n, sizeof(*f), folded_cmp);
	for (size_t i = 0; i < n;) {
		int64_t val = f[i].val;
		size_t j = i + 1;
		for (; j < n && !strcmp(f[j].text, f[i].text); j++) {
			if (var->func == UDT_AGG_MIN)
				val = f[j].val < val ? f[j].val : val;
			else if (var->func == UDT_AGG_MAX)
				val = f[j].val > val ? f[j].val : val;
			else
				val += f[j].val;
		}
		fprintf(out, "%s %lld\n", f[i].text, (long long)(val / normal));
		i = j;
	}
	for (size_t i = 0; i < n; i++)
		free(f[i].text);
	free(f);
	free(keys);
	free(ints);
}

/* %@ of a distribution prints the whole of it. */
static void print_dist_arg(FILE *out, const void *arg)
{
	print_distribution(out, arg);
}

/*
 * printa(fmt, ...) of one row: the conversions take the keys (those of
 * ents[0]) in order, and each %@ the value of the next aggregation (the
 * last one again if there are more %@ than aggregations).
 */
void out__text_printa_row(FILE *out, const struct out_printf *fmt,
			  const struct out_aggent *const *ents, size_t nents,
			  const struct out_namer *namer)
{
	const struct out_aggvar *var = ents[0]->var;
	struct out_pfarg *args = udt__xcalloc(fmt->nvals + 1, sizeof(*args));
	size_t na = 0, k = 0, agg = 0;

	for (size_t c = 0; c < fmt->cnt && fmt->v[c].conv; c++) {
		const struct out_pfconv *cv = &fmt->v[c];
		size_t take = 1 + (cv->width == OUT_PF_STAR) + (cv->prec == OUT_PF_STAR);
		for (size_t j = 0; j < take; j++) {
			struct out_pfarg *a = &args[na++];
			if (cv->agg && j + 1 == take) {
				/* its value as printf() takes it (a distribution prints whole) */
				a->size = 8;
				if (out_agg_is_dist(ents[agg]->var)) {
					a->fn = print_dist_arg;
					a->fn_arg = ents[agg];
				} else {
					a->v = out_agg_value(ents[agg]);
				}
				if (agg + 1 < nents)
					agg++;
			} else if (k < var->nkeys) {
				a->size = var->keys[k].size ? var->keys[k].size : 8;
				a->v = ents[0]->keys[k].v;
				a->s = ents[0]->keys[k].s;
				k++;
			}
		}
	}
	out_printf_print(out, fmt, args, na, fmt->names_addrs ? namer : NULL);
	free(args);
}

static void text_agg(struct out *o, const struct out_aggprint *ap)
{
	size_t n = ap->nvars;
	bool folded = n == 1 && o->o->agg_folded && out_agg_foldable(ap->vars[0]);

	if (ap->fmt) {
		for (size_t r = 0; r < ap->nrows; r++)
			out__text_printa_row(o->f, ap->fmt, ap->ents + r * n, n, ap->namer);
		return;
	}
	/* printa() starts on a new line (not a flame graph's lines, nor the ones at exit) */
	if (!ap->at_exit && !folded)
		fputc('\n', o->f);
	if (folded) {
		print_folded(o->f, ap->ents, ap->nrows);
		return;
	}
	/* dt_print_aggs(): the keys once, then each aggregation's value */
	for (size_t r = 0; r < ap->nrows; r++) {
		const struct out_aggent *const *row = ap->ents + r * n;
		if (n == 1) {
			print_entry(o->f, row[0]);
			continue;
		}
		for (size_t k = 0; k < ap->vars[0]->nkeys; k++)
			print_key(o->f, &ap->vars[0]->keys[k], &row[0]->keys[k]);
		for (size_t j = 0; j < n; j++)
			print_value(o->f, row[j]);
		fputc('\n', o->f);
	}
}

/* -- The trace ----------------------------------------------------------------------------------- */

static void text_end_records(struct out *o)
{
	/* dtrace(1) ends what it traced with an empty line, then prints the aggregations
	   (folded output is lines a flame graph reads, and only those) */
	if (!o->o->agg_folded)
		fputc('\n', o->f);
}

static void text_free(struct out *o)
{
	free(o->priv);
	o->priv = NULL;
}

const struct out_ops out__text = {
	.end_records = text_end_records,
	.record_begin = text_record_begin,
	.value = text_value,
	.record_end = text_record_end,
	.agg = text_agg,
	.free = text_free,
};
