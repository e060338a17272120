/* SPDX-License-Identifier: MIT */
/*
 * JSON and XML output (-x oformat=json, jsonl, xml), in the structure of
 * FreeBSD's dtrace -x oformat (its dtrace(1), "STRUCTURED OUTPUT"; the
 * examples are in docs/output.md):
 *
 *	{"dtrace":{"probes":[
 *	{"timestamp":...,"cpu":0,"id":7,"provider":"http1234","module":"server",
 *	 "function":"handle","name":"request-start","pid":1234,"tid":1234,
 *	 "output":[{"message":"GET /a\n"},{"value":"/a"}]},
 *	...
 *	]}}
 *
 * One object a record, on a line of its own, written as the record is read:
 * its probe, CPU, thread and timestamp, and "output", each action's value as
 * an object keyed by what it is (trace(): "value"; printf(): "message", then
 * each argument's "value"; ustack(): "ustack-frames"; printa():
 * "aggregation-name" and "aggregation-data"). Drops and faults are objects
 * of pseudo-probes (dtrace:INTERNAL:INTERNAL:DROP, ...:ERROR) in the same
 * list. The document is closed when the trace ends (exit(), the target gone,
 * ^C, an error), so that what was written is valid JSON; with jsonl there is
 * no document around the objects, one a line, for readers that follow the
 * output as it grows (jq -c, a log pipeline).
 *
 * The objects are written as they are made, through a small emitter (as
 * libxo's: keys, values, objects and lists opened and closed) with two
 * encoders: JSON, and XML as libxo writes it (an object an element, each item
 * of a list an element of the list's name, under <dtrace>). Strings are
 * escaped by json-c (a string object reused for each, so that no record
 * allocates). Building each record as a json-c tree and writing it cost 4
 * times the text's CPU per record (bench/output.sh); streaming costs about
 * as much as the text. A string from the target that is not UTF-8 keeps its
 * bytes: each byte that is not part of a UTF-8 sequence stands for the code
 * point of its value (U+0080...U+00FF), so that every reader accepts it.
 */
#include "output/output.h"
#include "util/util.h"

#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

enum jform { J_DOC, J_LINES, J_XML };

/* An object or a list the emitter is in. */
struct level {
	bool list;
	bool any;                  /* something was written in it */
	const char *name;          /* its key (XML: the element of a list's items, an object's) */
};

#define MAX_DEPTH 16

struct json {
	enum jform form;
	bool pretty;
	bool any;                  /* an object of the list of probes was written */
	bool in_record;            /* a record's object is open */
	bool at_exit;              /* the pseudo-probe of the aggregations at exit is open */
	bool said_noagg;           /* that they are not printed without -O was said */
	FILE *out;
	struct level lv[MAX_DEPTH];
	int depth;
	const char *key;           /* the key of the next value in an object */
	json_object *str;          /* the string json-c escapes (reused) */
	FILE *mem;                 /* a message's text (printf(), print(), printa()) */
	char *mem_buf;
	size_t mem_sz;
	char *utf8;                /* a string made UTF-8 */
	size_t utf8_cap;
	struct out_drop *pending;   /* drops counted while a record was open (a printa()'s) */
	size_t npending, pending_cap;
	char **probe_text;         /* by probe ID: its members as written (compact JSON only) */
	size_t nprobe_text;
};

static struct json *json_of(struct out *o)
{
	return o->priv;
}

/* -- The emitter ------------------------------------------------------------------------------ */

/* The length of the UTF-8 sequence at s (of n bytes), or 0 if none starts there. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
	size_t len = s[0] < 0x80 ? 1 : s[0] >= 0xc2 && s[0] <= 0xdf ? 2 : s[0] >= 0xe0 && s[0] <= 0xef ? 3
		     : s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : 0;

	if (!len || len > n)
		return 0;
	for (size_t i = 1; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	/* overlong forms, surrogates, past U+10FFFF */
	if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] > 0x9f) ||
	    (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] > 0x8f))
		return 0;
	return len;
}

/* s (n bytes) made UTF-8, each stray byte its own code point: s itself when it is. */
static const char *utf8(struct json *j, const char *s, size_t n, size_t *ret_n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, w = 0, len;

	while (i < n && (len = utf8_seq(u + i, n - i)))
		i += len;
	*ret_n = n;
	if (i == n)
		return s;
	if (j->utf8_cap < 2 * n + 1) {
		j->utf8_cap = 2 * n + 1;
		j->utf8 = udt__xreallocarray(j->utf8, j->utf8_cap, 1);
	}
	for (i = 0; i < n;) {
		len = utf8_seq(u + i, n - i);
		if (len) {
			memcpy(j->utf8 + w, u + i, len);
			w += len;
			i += len;
		} else {
			j->utf8[w++] = (char)(0xc0 | u[i] >> 6);
			j->utf8[w++] = (char)(0x80 | (u[i] & 0x3f));
			i++;
		}
	}
	*ret_n = w;
	return j->utf8;
}

/* Text for XML: & < > escaped, and the characters XML 1.0 cannot hold made U+FFFD. */
static void xml_text(FILE *out, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '&')
			fputs("&amp;", out);
		else if (c == '<')
			fputs("&lt;", out);
		else if (c == '>')
			fputs("&gt;", out);
		else if (c < 0x20 && c != '\t' && c != '\n' && c != '\r')
			fputs("\xef\xbf\xbd", out);
		else
			putc(c, out);
	}
}

static void indent(struct json *j)
{
	putc('\n', j->out);
	for (int i = 0; i < j->depth; i++)
		fputs("  ", j->out);
}

/* What comes before a value: a comma, the key; XML: the element it is (NULL: none). */
static const char *before(struct json *j)
{
	struct level *l = j->depth ? &j->lv[j->depth - 1] : NULL;
	const char *key = j->key;

	j->key = NULL;
	if (j->form == J_XML)
		return !l ? "probes" : l->list ? l->name : key;
	if (l && l->any)
		putc(',', j->out);
	if (l && j->pretty)
		indent(j);
	if (l && !l->list) {
		/* (keys are ours, or D identifiers: nothing in them to escape) */
		putc('"', j->out);
		fputs(key, j->out);
		fputs(j->pretty ? "\": " : "\":", j->out);
	}
	if (l)
		l->any = true;
	return NULL;
}

static void key(struct json *j, const char *k)
{
	j->key = k;
}

/* Open an object or a list (the value of the key given, or an item of the list it is in). */
static void jopen(struct json *j, bool list)
{
	const char *name = before(j);

	if (j->depth == MAX_DEPTH)
		return; /* (deeper than anything here) */
	if (j->form == J_XML && !list)
		fprintf(j->out, "<%s>", name);
	else if (j->form != J_XML)
		putc(list ? '[' : '{', j->out);
	/* an XML list is its items, each an element of its name; a list in a list, the same */
	j->lv[j->depth++] = (struct level){ .list = list, .name = name };
}

static void jclose(struct json *j)
{
	struct level *l = &j->lv[--j->depth];

	if (j->form == J_XML) {
		if (!l->list)
			fprintf(j->out, "</%s>", l->name);
		return;
	}
	if (j->pretty && l->any)
		indent(j);
	putc(l->list ? ']' : '}', j->out);
}

/* A scalar's text (already JSON: a number, true); XML: as it is. */
static void scalar(struct json *j, const char *text)
{
	const char *name = before(j);

	if (j->form == J_XML)
		fprintf(j->out, "<%s>%s</%s>", name, text, name);
	else
		fputs(text, j->out);
}

static void str_n(struct json *j, const char *s, size_t n)
{
	const char *name = before(j);
	size_t len;

	s = utf8(j, s, n, &n);
	if (j->form == J_XML) {
		fprintf(j->out, "<%s>", name);
		xml_text(j->out, s, n);
		fprintf(j->out, "</%s>", name);
		return;
	}
	if (!n) {
		/* (json-c 0.16 leaks a string set to "" after a long one) */
		fputs("\"\"", j->out);
		return;
	}
	json_object_set_string_len(j->str, s, (int)n);
	const char *e = json_object_to_json_string_length(j->str, JSON_C_TO_STRING_NOSLASHESCAPE,
							  &len);
	fwrite(e, 1, len, j->out);
}

static void str(struct json *j, const char *s)
{
	str_n(j, s, strlen(s));
}

/* v in decimal, ending at end (which it returns the start of) */
static char *decimal(uint64_t v, char *end)
{
	*--end = 0;
	do
		*--end = (char)('0' + v % 10);
	while (v /= 10);
	return end;
}

static void num_u(struct json *j, uint64_t v)
{
	char b[32];

	scalar(j, decimal(v, b + sizeof(b)));
}

static void num_i(struct json *j, int64_t v)
{
	char b[32], *p;

	if (v >= 0) {
		num_u(j, (uint64_t)v);
		return;
	}
	p = decimal(0 - (uint64_t)v, b + sizeof(b));
	*--p = '-';
	scalar(j, p);
}

static void boolean(struct json *j, bool v)
{
	scalar(j, v ? "true" : "false");
}

/* An integer of size bytes, signed or not. */
static void num_sized(struct json *j, uint64_t v, unsigned size, bool is_signed)
{
	if (size && size < 8) {
		unsigned bits = size * 8;
		v &= (1ull << bits) - 1;
		if (is_signed && (v >> (bits - 1)))
			v |= ~0ull << bits;
	}
	if (is_signed)
		num_i(j, (int64_t)v);
	else
		num_u(j, v);
}

/* The bits of a float (size 4) or a double (8); JSON has no NaN or infinity: null. */
static void num_float(struct json *j, uint64_t v, unsigned size)
{
	char b[64];
	double d;

	if (size == 4) {
		float f;
		uint32_t bits = (uint32_t)v;
		memcpy(&f, &bits, 4);
		d = f;
	} else {
		memcpy(&d, &v, 8);
	}
	if (d != d || d - d != 0)
		snprintf(b, sizeof(b), "null");
	else
		snprintf(b, sizeof(b), "%.17g", d);
	scalar(j, b);
}

/* {"key": ...} as an item of the output list: the pair's key set, its value to follow. */
static void item(struct json *j, const char *k)
{
	jopen(j, false);
	key(j, k);
}

/* The memory stream a message is written into, emptied. */
static FILE *mem_start(struct json *j)
{
	if (!j->mem)
		j->mem = open_memstream(&j->mem_buf, &j->mem_sz);
	if (j->mem)
		rewind(j->mem);
	return j->mem;
}

/* What was written into it since mem_start(), as a string value. */
static void mem_str(struct json *j)
{
	fflush(j->mem);
	str_n(j, j->mem_buf, (size_t)ftell(j->mem));
}

/* -- Values -------------------------------------------------------------------------------------- */

/* A frame as DTrace names it ("module`function+0xoff"), and its parts, as FreeBSD's. */
static void frame(struct json *j, const char *name, size_t n)
{
	const char *tick = memchr(name, '`', n), *plus = NULL;

	jopen(j, false);
	key(j, "symbol");
	str_n(j, name, n);
	for (const char *p = name; p < name + n; p++)
		if (*p == '+')
			plus = p;
	if (tick) {
		key(j, "module");
		str_n(j, name, (size_t)(tick - name));
	}
	const char *fn = tick ? tick + 1 : name, *end = plus && plus > fn ? plus : name + n;
	if (tick && end > fn && strncmp(fn, "0x", 2)) {
		key(j, "name");
		str_n(j, fn, (size_t)(end - fn));
	}
	if (plus && plus > fn) {
		key(j, "offset");
		str_n(j, plus + 1, (size_t)(name + n - plus - 1));
	} else if (!tick || !strncmp(fn, "0x", 2)) {
		key(j, "offset");
		str_n(j, fn, (size_t)(name + n - fn));
	}
	jclose(j);
}

/* A stack's text (stack.c: a newline, then a frame a line, indented) as a list of frames. */
static void frames(struct json *j, const char *text)
{
	jopen(j, true);
	for (const char *p = text; *p;) {
		const char *e = strchr(p, '\n');
		if (!e)
			e = p + strlen(p);
		while (p < e && *p == ' ')
			p++;
		if (p < e)
			frame(j, p, (size_t)(e - p));
		p = *e ? e + 1 : e;
	}
	jclose(j);
}

/* What usym(), uaddr() and umod() are called in the output. */
static const char *addr_key(enum out_addrfmt fmt)
{
	switch (fmt) {
	case OUT_ADDR_UADDR:
		return "uaddr";
	case OUT_ADDR_UMOD:
		return "umod";
	default:
		return "usym";
	}
}

/* A printf() argument as trace() would have recorded it. */
static void pfarg(struct json *j, const struct out_pfarg *a)
{
	if (a->s)
		str(j, a->s);
	else if (a->is_float)
		num_float(j, a->v, a->size);
	else
		num_sized(j, a->v, a->size, !a->is_unsigned);
}

static void json_value(struct out *o, const struct out_val *v)
{
	struct json *j = json_of(o);
	const struct out_field *f = v->f;

	if (!j->in_record)
		return;
	switch (f->kind) {
	case OUT_F_INT:
		item(j, "value");
		if (f->is_float)
			num_float(j, v->v, f->size);
		else
			num_sized(j, v->v, f->size, f->is_signed);
		jclose(j);
		break;
	case OUT_F_STR:
		item(j, "value");
		str(j, v->s);
		jclose(j);
		break;
	case OUT_F_PRINTF:
		if (!mem_start(j))
			break;
		out_printf_print(j->mem, f->pf, v->args, v->nargs,
				 f->pf->names_addrs ? o->cur.namer : NULL);
		item(j, "message");
		mem_str(j);
		jclose(j);
		for (size_t i = 0; i < v->nargs; i++) {
			item(j, "value");
			pfarg(j, &v->args[i]);
			jclose(j);
		}
		break;
	case OUT_F_STACK: {
		char *s = out_stack_text(o->cur.namer, v->bytes, f->nframes, o->o->stackindent);
		item(j, "ustack-frames");
		frames(j, s);
		jclose(j);
		free(s);
		break;
	}
	case OUT_F_ADDR:
		item(j, addr_key(f->addr));
		str(j, out_name(o->cur.namer, v->v, f->addr, false));
		jclose(j);
		break;
	case OUT_F_MEM: {
		char *hex = udt__xmalloc(2 * (size_t)v->size + 1);
		for (unsigned i = 0; i < v->size; i++)
			snprintf(hex + 2 * i, 3, "%02x", v->bytes[i]);
		item(j, "tracemem");
		str_n(j, hex, 2 * (size_t)v->size);
		jclose(j);
		free(hex);
		break;
	}
	case OUT_F_PRINT:
		if (!mem_start(j))
			break;
		out__print_value(j->mem, v);
		item(j, "type");
		str(j, dl_type_cdecl(f->prog, f->type, NULL));
		key(j, "print");
		mem_str(j);
		jclose(j);
		break;
	}
}

/* -- Aggregations -------------------------------------------------------------------------------- */

/* A key component: an integer as the text shows it, a string, a stack's frames. */
static void agg_key(struct json *j, const struct out_aggkey *k, const struct out_aggkv *v)
{
	if (k->sym == OUT_ADDR_USTACK)
		frames(j, v->s);
	else if (k->is_str)
		str(j, v->s);
	else
		num_sized(j, v->v, k->size ? k->size : 8, k->size >= 4);
}

/* An entry's value in the object open: "count": n (the function's name), or "buckets". */
static void agg_value(struct json *j, const struct out_aggent *e)
{
	if (!out_agg_is_dist(e->var)) {
		key(j, e->var->fname);
		if (e->var->func == UDT_AGG_STDDEV)
			num_u(j, out_agg_value(e));
		else
			num_i(j, (int64_t)out_agg_value(e));
		return;
	}
	int n, first, last;
	int64_t *lo, normal = e->var->normal ? e->var->normal : 1;

	out_agg_dist_range(e, &n, &first, &last, &lo);
	key(j, "buckets");
	jopen(j, true);
	for (int i = first; i <= last; i++) {
		jopen(j, false);
		key(j, "value");
		num_i(j, lo[i]);
		key(j, "count");
		num_i(j, e->val[i] / normal);
		/* lquantize()'s and llquantize()'s first bucket is "< value", their last ">= value" */
		if (e->var->func != UDT_AGG_QUANTIZE && (i == 0 || i == n - 1)) {
			key(j, i ? "overflow" : "underflow");
			boolean(j, true);
		}
		jclose(j);
	}
	jclose(j);
	free(lo);
}

static void probe_object(struct out *o, const struct out_probe *pr, const char *name,
			 const struct out_rec *ri);

static void json_agg(struct out *o, const struct out_aggprint *ap)
{
	struct json *j = json_of(o);
	size_t n = ap->nvars;

	/* at exit only with -O, as FreeBSD's: scripts print what they want with printa();
	   said once, not to lose a user's data without a word */
	if (ap->at_exit && !o->o->aggprint) {
		if (!j->said_noagg)
			fprintf(stderr, "dtrace: the aggregations are not printed at exit with -x "
				"oformat=%s (as FreeBSD's dtrace); -O prints them\n", o->o->oformat);
		j->said_noagg = true;
		return;
	}
	if (ap->at_exit && !j->at_exit) {
		/* the aggregations at exit: the output of a pseudo-probe, closed by finish */
		probe_object(o, NULL, "AGGREGATIONS", NULL);
		key(j, "output");
		jopen(j, true);
		j->at_exit = true;
	}
	if (!j->in_record && !j->at_exit)
		return;
	jopen(j, false);
	key(j, "aggregation-name");
	str(j, ap->vars[0]->name);
	if (n > 1) {
		key(j, "aggregation-names");
		jopen(j, true);
		for (size_t k = 0; k < n; k++)
			str(j, ap->vars[k]->name);
		jclose(j);
	}
	key(j, "aggregation-data");
	jopen(j, true);
	for (size_t r = 0; r < ap->nrows; r++) {
		const struct out_aggent *const *row = ap->ents + r * n;
		jopen(j, false);
		key(j, "keys");
		jopen(j, true);
		for (size_t k = 0; k < ap->vars[0]->nkeys; k++)
			agg_key(j, &ap->vars[0]->keys[k], &row[0]->keys[k]);
		jclose(j);
		if (n == 1) {
			agg_value(j, row[0]);
		} else {
			key(j, "values");
			jopen(j, true);
			for (size_t k = 0; k < n; k++) {
				jopen(j, false);
				agg_value(j, row[k]);
				jclose(j);
			}
			jclose(j);
		}
		if (ap->fmt && mem_start(j)) {
			out__text_printa_row(j->mem, ap->fmt, row, n, ap->namer);
			key(j, "message");
			mem_str(j);
		}
		jclose(j);
	}
	jclose(j);
	jclose(j);
}

/* -- Records, drops, faults ------------------------------------------------------------------------ */

/* The members that name probe pr (NULL: dtrace's INTERNAL pseudo-probe called name). */
static void probe_members(struct json *j, const struct out_probe *pr, const char *name)
{
	key(j, "id");
	num_i(j, pr ? (int64_t)pr->id : -1);
	key(j, "provider");
	str(j, pr ? pr->prov : "dtrace");
	key(j, "module");
	str(j, pr ? pr->mod : "INTERNAL");
	key(j, "function");
	str(j, pr ? pr->func : "INTERNAL");
	key(j, "name");
	str(j, pr ? pr->name : name);
}

/* Open the object of probe pr (NULL: dtrace's INTERNAL pseudo-probe called name) in the list. */
static void probe_object(struct out *o, const struct out_probe *pr, const char *name,
			 const struct out_rec *ri)
{
	struct json *j = json_of(o);

	if (j->form == J_DOC && j->any)
		fputs(",\n", j->out);
	j->any = true;
	jopen(j, false);
	key(j, "timestamp");
	num_u(j, ri ? ri->timestamp : udt__now_ns());
	key(j, "cpu");
	num_i(j, ri ? (int64_t)ri->cpu : -1);
	if (pr && j->form != J_XML && !j->pretty) {
		/* a probe's members are the same in each of its records: made once */
		if (pr->id >= j->nprobe_text) {
			size_t n = pr->id + 64;
			j->probe_text = udt__xreallocarray(j->probe_text, n, sizeof(*j->probe_text));
			memset(j->probe_text + j->nprobe_text, 0,
			       (n - j->nprobe_text) * sizeof(*j->probe_text));
			j->nprobe_text = n;
		}
		if (!j->probe_text[pr->id]) {
			char *text = NULL;
			size_t len = 0;
			FILE *out = j->out, *m = open_memstream(&text, &len);
			if (m) {
				j->out = m;
				probe_members(j, pr, name);
				j->out = out;
				fclose(m);
				j->probe_text[pr->id] = text;
			}
		}
		if (j->probe_text[pr->id])
			fputs(j->probe_text[pr->id], j->out);
		else
			probe_members(j, pr, name);
	} else {
		probe_members(j, pr, name);
	}
	if (ri) {
		key(j, "pid");
		num_i(j, ri->pid);
		key(j, "tid");
		num_i(j, ri->tid);
	}
}

/* Close the object of the list of probes. */
static void probe_end(struct json *j)
{
	jclose(j);
	if (j->form != J_DOC)
		putc('\n', j->out);
}

static void json_drop(struct out *o, const struct out_drop *d);

/* The drops counted while an object was open, written after it. */
static void flush_pending(struct out *o)
{
	struct json *j = json_of(o);

	for (size_t i = 0; i < j->npending; i++) {
		json_drop(o, &j->pending[i]);
		free((char *)j->pending[i].msg);
	}
	j->npending = 0;
}

static void json_record_begin(struct out *o, const struct out_rec *ri)
{
	struct json *j = json_of(o);

	if (j->in_record || j->at_exit)
		return; /* (none is open: a record is never inside another) */
	probe_object(o, &ri->probe, NULL, ri);
	key(j, "output");
	jopen(j, true);
	j->in_record = true;
}

static void json_record_end(struct out *o)
{
	struct json *j = json_of(o);

	if (!j->in_record)
		return;
	jclose(j);
	probe_end(j);
	j->in_record = false;
	flush_pending(o);
}

static void json_drop(struct out *o, const struct out_drop *d)
{
	struct json *j = json_of(o);

	if (j->in_record || j->at_exit) {
		/* (an aggregation drop found by a record's printa(): written after the record) */
		struct out_drop c = *d;
		c.msg = udt__xstrdup(d->msg);
		UDT__PUSH(j->pending, j->npending, j->pending_cap, c);
		return;
	}
	probe_object(o, NULL, "DROP", NULL);
	key(j, "count");
	num_u(j, d->count);
	key(j, "total");
	num_u(j, d->total);
	key(j, "kind");
	num_i(j, d->kind);
	if (d->tid) {
		key(j, "tid");
		num_i(j, d->tid);
	}
	key(j, "msg");
	str(j, d->msg);
	probe_end(j);
}

static void json_fault(struct out *o, const struct out_fault *f)
{
	struct json *j = json_of(o);
	const struct out_probe *pr = &f->probe;
	char desc[1024];

	if (j->in_record || j->at_exit)
		return; /* (a fault is never found while a record is written) */
	probe_object(o, NULL, "ERROR", &f->where);
	key(j, "epid");
	num_i(j, f->epid);
	key(j, "probe-id");
	num_i(j, pr->id);
	snprintf(desc, sizeof(desc), "%s:%s:%s:%s", pr->prov, pr->mod, pr->func, pr->name);
	key(j, "probe");
	str(j, desc);
	key(j, "action");
	num_i(j, f->action);
	key(j, "msg");
	str(j, f->msg);
	probe_end(j);
}

static void json_start(struct out *o)
{
	struct json *j = json_of(o);

	j->out = o->f;
	if (j->form == J_XML)
		fputs("<?xml version=\"1.0\"?>\n<dtrace>\n", j->out);
	else if (j->form == J_DOC)
		fputs("{\"dtrace\":{\"probes\":[\n", j->out);
}

static void json_finish(struct out *o)
{
	struct json *j = json_of(o);

	json_record_end(o); /* (a record cut short by an error) */
	if (j->at_exit) {
		jclose(j);
		probe_end(j);
		j->at_exit = false;
		flush_pending(o);
	}
	if (j->form == J_XML)
		fputs("</dtrace>\n", j->out);
	else if (j->form == J_DOC)
		fputs(j->any ? "\n]}}\n" : "]}}\n", j->out);
}

static void json_free(struct out *o)
{
	struct json *j = json_of(o);

	if (!j)
		return;
	json_object_put(j->str);
	if (j->mem)
		fclose(j->mem);
	free(j->mem_buf);
	free(j->utf8);
	for (size_t i = 0; i < j->npending; i++)
		free((char *)j->pending[i].msg);
	free(j->pending);
	for (size_t i = 0; i < j->nprobe_text; i++)
		free(j->probe_text[i]);
	free(j->probe_text);
	free(j);
	o->priv = NULL;
}

/* -x oformat=json[,pretty], jsonl[,pretty] or xml */
static int json_open(struct out *o, const char *form, bool pretty, char **ret_err)
{
	struct json *j = udt__xcalloc(1, sizeof(*j));

	(void)ret_err;
	j->form = !strcmp(form, "xml") ? J_XML : !strcmp(form, "jsonl") ? J_LINES : J_DOC;
	j->pretty = pretty && j->form != J_XML;
	j->str = json_object_new_string("");
	j->out = o->f;
	o->priv = j;
	return 0;
}

const struct out_ops out__json = {
	.open = json_open,
	.start = json_start,
	.finish = json_finish,
	.record_begin = json_record_begin,
	.value = json_value,
	.record_end = json_record_end,
	.agg = json_agg,
	.drop = json_drop,
	.fault = json_fault,
	.free = json_free,
};
