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
 * Each object is built with json-c, which escapes the strings, and written
 * whole. A string from the target that is not UTF-8 keeps its bytes: each
 * byte that is not part of a UTF-8 sequence stands for the code point of its
 * value (U+0080...U+00FF), so that every reader accepts the output.
 *
 * XML is the same tree as libxo writes it: an object an element, a list's
 * items each an element of the list's name, under <dtrace>.
 */
#include "consumer/internal.h"
#include "util/util.h"

#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

enum jform { J_DOC, J_LINES, J_XML };

struct json {
	enum jform form;
	int flags;                 /* json-c's, to write an object */
	bool any;                  /* an object of the list was written */
	json_object *rec;          /* the record being made */
	json_object *output;       /* its "output" */
	json_object *at_exit;      /* the aggregations printed at exit (-O), or NULL */
	FILE *mem;                 /* a message's text (printf(), print()) */
	char *mem_buf;
	size_t mem_sz;
	char *str;                 /* a string made UTF-8 */
	size_t str_cap;
};

static struct json *json_of(struct cs_trace *t)
{
	return t->out_priv;
}

/* -- Values -------------------------------------------------------------------------------------- */

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

/* A JSON string of the n bytes at s, made UTF-8 (each stray byte its own code point). */
static json_object *jstr_n(struct json *j, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, w = 0;

	while (i < n) {
		size_t len = utf8_seq(u + i, n - i);
		if (!len)
			break;
		i += len;
	}
	if (i == n)
		return json_object_new_string_len(s, (int)n);
	if (j->str_cap < 2 * n + 1) {
		j->str_cap = 2 * n + 1;
		j->str = udt__xreallocarray(j->str, j->str_cap, 1);
	}
	for (i = 0; i < n;) {
		size_t len = utf8_seq(u + i, n - i);
		if (len) {
			memcpy(j->str + w, u + i, len);
			w += len;
			i += len;
		} else {
			j->str[w++] = (char)(0xc0 | u[i] >> 6);
			j->str[w++] = (char)(0x80 | (u[i] & 0x3f));
			i++;
		}
	}
	return json_object_new_string_len(j->str, (int)w);
}

static json_object *jstr(struct json *j, const char *s)
{
	return jstr_n(j, s, strlen(s));
}

/* An integer of size bytes, signed or not, as a JSON number. */
static json_object *jint(uint64_t v, unsigned size, bool is_signed)
{
	if (size < 8) {
		unsigned bits = size * 8;
		v &= (1ull << bits) - 1;
		if (is_signed && (v >> (bits - 1)))
			v |= ~0ull << bits;
	}
	if (is_signed || v <= INT64_MAX)
		return json_object_new_int64((int64_t)v);
	return json_object_new_uint64(v);
}

/* The bits of a float (size 4) or a double (8) as a JSON number. */
static json_object *jfloat(uint64_t v, unsigned size)
{
	double d;

	if (size == 4) {
		float f;
		uint32_t b = (uint32_t)v;
		memcpy(&f, &b, 4);
		d = f;
	} else {
		memcpy(&d, &v, 8);
	}
	return json_object_new_double(d);
}

/* {key: val} */
static json_object *pair(const char *key, json_object *val)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, key, val);
	return o;
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

/* What was written into it since mem_start(), as a JSON string. */
static json_object *mem_take(struct json *j)
{
	fflush(j->mem);
	return jstr_n(j, j->mem_buf, (size_t)ftell(j->mem));
}

/* A frame as DTrace names it ("module`function+0xoff"), and its parts, as FreeBSD's. */
static json_object *frame(struct json *j, const char *name, size_t n)
{
	json_object *f = json_object_new_object();
	const char *tick = memchr(name, '`', n), *plus = NULL;

	json_object_object_add(f, "symbol", jstr_n(j, name, n));
	for (const char *p = name; p < name + n; p++)
		if (*p == '+')
			plus = p;
	if (tick)
		json_object_object_add(f, "module", jstr_n(j, name, (size_t)(tick - name)));
	const char *fn = tick ? tick + 1 : name, *end = plus && plus > fn ? plus : name + n;
	if (tick && end > fn && strncmp(fn, "0x", 2))
		json_object_object_add(f, "name", jstr_n(j, fn, (size_t)(end - fn)));
	if (plus && plus > fn)
		json_object_object_add(f, "offset", jstr_n(j, plus + 1, (size_t)(name + n - plus - 1)));
	else if (!tick || !strncmp(fn, "0x", 2))
		json_object_object_add(f, "offset", jstr_n(j, fn, (size_t)(name + n - fn)));
	return f;
}

/* A stack's text (stack.c: a newline, then a frame a line, indented) as an array of frames. */
static json_object *frames(struct json *j, const char *text)
{
	json_object *a = json_object_new_array();

	for (const char *p = text; *p;) {
		const char *e = strchr(p, '\n');
		if (!e)
			e = p + strlen(p);
		while (p < e && *p == ' ')
			p++;
		if (p < e)
			json_object_array_add(a, frame(j, p, (size_t)(e - p)));
		p = *e ? e + 1 : e;
	}
	return a;
}

/* What usym(), uaddr() and umod() are called in the output. */
static const char *addr_key(const struct cs_action *a)
{
	switch (a->sym) {
	case CS_ADDR_UADDR:
		return "uaddr";
	case CS_ADDR_UMOD:
		return "umod";
	default:
		return "usym";
	}
}

/* A printf() argument as trace() would have recorded it. */
static json_object *pfarg(struct json *j, const struct cs_pfarg *a)
{
	if (a->s)
		return jstr(j, a->s);
	if (a->is_float)
		return jfloat(a->v, a->size);
	return jint(a->v, a->size, !a->is_unsigned);
}

static void add_output(struct json *j, json_object *o)
{
	if (j->output)
		json_object_array_add(j->output, o);
	else
		json_object_put(o);
}

static void json_value(struct cs_trace *t, const struct cs_outval *v)
{
	struct json *j = json_of(t);
	const struct cs_action *a = v->act;
	FILE *m;

	switch (v->kind) {
	case CS_OV_INT:
		add_output(j, pair("value", a->is_float ? jfloat(v->v, v->size)
							: jint(v->v, v->size, a->is_signed)));
		break;
	case CS_OV_STR:
		add_output(j, pair("value", jstr(j, v->s)));
		break;
	case CS_OV_PRINTF:
		if (!(m = mem_start(j)))
			break;
		cs_printf_print(m, v->pf, v->args, v->nargs,
				v->pf->names_addrs ? cs__trace_syms(t) : NULL);
		add_output(j, pair("message", mem_take(j)));
		for (size_t i = 0; i < v->nargs; i++)
			add_output(j, pair("value", pfarg(j, &v->args[i])));
		break;
	case CS_OV_STACK:
	case CS_OV_ADDR: {
		char *s = cs__stack_key_text(t, a, v->data);
		add_output(j, v->kind == CS_OV_STACK ? pair("ustack-frames", frames(j, s))
						     : pair(addr_key(a), jstr(j, s)));
		free(s);
		break;
	}
	case CS_OV_MEM: {
		char *hex = udt__xmalloc(2 * (size_t)v->size + 1);
		for (unsigned i = 0; i < v->size; i++)
			snprintf(hex + 2 * i, 3, "%02x", v->bytes[i]);
		hex[2 * (size_t)v->size] = 0;
		add_output(j, pair("tracemem", json_object_new_string(hex)));
		free(hex);
		break;
	}
	case CS_OV_PRINT: {
		if (!(m = mem_start(j)))
			break;
		cs__print_action(t, m, a, v->data);
		json_object *o = pair("type", jstr(j, dl_type_cdecl(t->prog, a->print_type, NULL)));
		json_object_object_add(o, "print", mem_take(j));
		add_output(j, o);
		break;
	}
	}
}

/* -- Aggregations -------------------------------------------------------------------------------- */

/* A key component: an integer as the text shows it, a string, a stack's frames. */
static json_object *agg_key(struct json *j, const struct cs_aggkey *k, const struct cs_aggkv *v)
{
	if (k->sym == CS_ADDR_USTACK)
		return frames(j, v->s);
	if (k->is_str)
		return jstr(j, v->s);
	return jint(v->v, k->size ? k->size : 8, k->size >= 4);
}

/* An entry's value: {"count": n} (the function's name), or {"buckets": [...]}. */
static void agg_value(struct json *j, json_object *o, const struct cs_aggent *e)
{
	(void)j;
	if (!cs__agg_is_dist(e->var)) {
		json_object_object_add(o, e->var->fname,
				       e->var->func == UDT_AGG_STDDEV
					       ? json_object_new_uint64(cs__agg_value(e))
					       : json_object_new_int64((int64_t)cs__agg_value(e)));
		return;
	}
	int n, first, last;
	int64_t *lo, normal = e->var->normal ? e->var->normal : 1;
	json_object *b = json_object_new_array();

	cs__agg_dist_range(e, &n, &first, &last, &lo);
	for (int i = first; i <= last; i++) {
		json_object *bk = pair("value", json_object_new_int64(lo[i]));
		json_object_object_add(bk, "count", json_object_new_int64(e->val[i] / normal));
		/* lquantize()'s and llquantize()'s first bucket is "< value", their last ">= value" */
		if (e->var->func != UDT_AGG_QUANTIZE && (i == 0 || i == n - 1))
			json_object_object_add(bk, i ? "overflow" : "underflow",
					       json_object_new_boolean(1));
		json_object_array_add(b, bk);
	}
	free(lo);
	json_object_object_add(o, "buckets", b);
}

static void json_agg(struct cs_trace *t, const struct cs_aggprint *ap)
{
	struct json *j = json_of(t);
	size_t n = ap->nvars;

	/* at exit only with -O, as FreeBSD's: scripts print what they want with printa() */
	if (ap->at_exit && !t->o.aggprint)
		return;
	json_object *o = pair("aggregation-name", jstr(j, ap->vars[0]->name));
	if (n > 1) {
		json_object *names = json_object_new_array();
		for (size_t k = 0; k < n; k++)
			json_object_array_add(names, jstr(j, ap->vars[k]->name));
		json_object_object_add(o, "aggregation-names", names);
	}
	json_object *data = json_object_new_array();
	for (size_t r = 0; r < ap->nrows; r++) {
		const struct cs_aggent *const *row = ap->ents + r * n;
		json_object *ent = json_object_new_object(), *keys = json_object_new_array();
		for (size_t k = 0; k < ap->vars[0]->nkeys; k++)
			json_object_array_add(keys, agg_key(j, &ap->vars[0]->keys[k], &row[0]->keys[k]));
		json_object_object_add(ent, "keys", keys);
		if (n == 1) {
			agg_value(j, ent, row[0]);
		} else {
			json_object *vals = json_object_new_array();
			for (size_t k = 0; k < n; k++) {
				json_object *vo = json_object_new_object();
				agg_value(j, vo, row[k]);
				json_object_array_add(vals, vo);
			}
			json_object_object_add(ent, "values", vals);
		}
		FILE *m;
		if (ap->fmt && (m = mem_start(j))) {
			cs__text_printa_row(t, m, ap->fmt, row, n);
			json_object_object_add(ent, "message", mem_take(j));
		}
		json_object_array_add(data, ent);
	}
	json_object_object_add(o, "aggregation-data", data);
	if (ap->at_exit) {
		if (!j->at_exit)
			j->at_exit = json_object_new_array();
		json_object_array_add(j->at_exit, o);
	} else {
		add_output(j, o);
	}
}

/* -- Writing ------------------------------------------------------------------------------------- */

/* Text for XML: & < > escaped, and the characters XML 1.0 cannot hold made U+FFFD. */
static void xml_text(FILE *out, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '&')
			fputs("&amp;", out);
		else if (c == '<')
			fputs("&lt;", out);
		else if (c == '>')
			fputs("&gt;", out);
		else if (c < 0x20 && c != '\t' && c != '\n' && c != '\r')
			fputs("\xef\xbf\xbd", out);
		else
			fputc(c, out);
	}
}

/* o as libxo writes XML: an object an element, each item of a list an element of its name. */
static void xml_write(FILE *out, const char *name, json_object *o)
{
	switch (json_object_get_type(o)) {
	case json_type_array:
		for (size_t i = 0; i < json_object_array_length(o); i++)
			xml_write(out, name, json_object_array_get_idx(o, i));
		return;
	case json_type_object:
		fprintf(out, "<%s>", name);
		json_object_object_foreach(o, key, val)
			xml_write(out, key, val);
		fprintf(out, "</%s>", name);
		return;
	case json_type_null:
		fprintf(out, "<%s/>", name);
		return;
	case json_type_string:
		fprintf(out, "<%s>", name);
		xml_text(out, json_object_get_string(o));
		fprintf(out, "</%s>", name);
		return;
	default:
		fprintf(out, "<%s>%s</%s>", name, json_object_to_json_string_ext(o, 0), name);
		return;
	}
}

/* One object of the list of probes, written (and freed). */
static void emit(struct cs_trace *t, json_object *o)
{
	struct json *j = json_of(t);

	if (j->form == J_XML) {
		xml_write(t->out, "probes", o);
		fputc('\n', t->out);
	} else {
		size_t len;
		const char *s = json_object_to_json_string_length(o, j->flags, &len);
		if (j->form == J_DOC && j->any)
			fputs(",\n", t->out);
		fwrite(s, 1, len, t->out);
		if (j->form == J_LINES)
			fputc('\n', t->out);
	}
	j->any = true;
	json_object_put(o);
}

/* An object of probe pr (NULL: dtrace's INTERNAL pseudo-probe called name). */
static json_object *probe_object(struct json *j, const struct cs_probe *pr, const char *name,
				 const struct cs_recinfo *ri)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "timestamp", json_object_new_uint64(ri ? ri->timestamp
									  : cs__now_ns()));
	json_object_object_add(o, "cpu", json_object_new_int64(ri ? (int64_t)ri->cpu : -1));
	json_object_object_add(o, "id", json_object_new_int64(pr ? (int64_t)pr->id : -1));
	json_object_object_add(o, "provider", jstr(j, pr ? pr->prov : "dtrace"));
	json_object_object_add(o, "module", jstr(j, pr ? pr->mod : "INTERNAL"));
	json_object_object_add(o, "function", jstr(j, pr ? pr->func : "INTERNAL"));
	json_object_object_add(o, "name", jstr(j, pr ? pr->name : name));
	if (ri) {
		json_object_object_add(o, "pid", json_object_new_int64(ri->pid));
		json_object_object_add(o, "tid", json_object_new_int64(ri->tid));
	}
	return o;
}

static void json_record_begin(struct cs_trace *t, const struct cs_ecb *e, const struct cs_recinfo *ri)
{
	struct json *j = json_of(t);

	json_object_put(j->rec); /* (a record left open: none is) */
	j->rec = probe_object(j, e->probe, NULL, ri);
	j->output = json_object_new_array();
	json_object_object_add(j->rec, "output", j->output);
}

static void json_record_end(struct cs_trace *t)
{
	struct json *j = json_of(t);
	json_object *rec = j->rec;

	j->rec = NULL;
	j->output = NULL;
	if (rec)
		emit(t, rec);
}

static void json_drop(struct cs_trace *t, const struct cs_drop *d)
{
	struct json *j = json_of(t);
	json_object *o = probe_object(j, NULL, "DROP", NULL);

	json_object_object_add(o, "count", json_object_new_uint64(d->count));
	json_object_object_add(o, "total", json_object_new_uint64(d->total));
	json_object_object_add(o, "kind", json_object_new_int64(d->kind));
	if (d->tid)
		json_object_object_add(o, "tid", json_object_new_int64(d->tid));
	json_object_object_add(o, "msg", jstr(j, d->msg));
	emit(t, o);
}

static void json_fault(struct cs_trace *t, const struct cs_fault *f)
{
	struct json *j = json_of(t);
	const struct cs_probe *pr = f->ecb->probe;
	json_object *o = probe_object(j, NULL, "ERROR", &f->where);
	char desc[1024];

	json_object_object_add(o, "epid", json_object_new_int64(f->ecb->epid));
	json_object_object_add(o, "probe-id", json_object_new_int64(pr->id));
	snprintf(desc, sizeof(desc), "%s:%s:%s:%s", pr->prov, pr->mod, pr->func, pr->name);
	json_object_object_add(o, "probe", jstr(j, desc));
	json_object_object_add(o, "action", json_object_new_int64(f->action));
	json_object_object_add(o, "msg", jstr(j, f->msg));
	emit(t, o);
}

static void json_start(struct cs_trace *t)
{
	struct json *j = json_of(t);

	if (j->form == J_XML)
		fputs("<?xml version=\"1.0\"?>\n<dtrace>\n", t->out);
	else if (j->form == J_DOC)
		fputs("{\"dtrace\":{\"probes\":[\n", t->out);
}

static void json_finish(struct cs_trace *t)
{
	struct json *j = json_of(t);

	json_record_end(t); /* (a record cut short by an error) */
	if (j->at_exit) {
		/* the aggregations printed at exit (-O): a pseudo-probe's output */
		json_object *o = probe_object(j, NULL, "AGGREGATIONS", NULL);
		json_object_object_add(o, "output", j->at_exit);
		j->at_exit = NULL;
		emit(t, o);
	}
	if (j->form == J_XML)
		fputs("</dtrace>\n", t->out);
	else if (j->form == J_DOC)
		fputs(j->any ? "\n]}}\n" : "]}}\n", t->out);
}

static void json_free(struct cs_trace *t)
{
	struct json *j = json_of(t);

	if (!j)
		return;
	json_object_put(j->rec);
	json_object_put(j->at_exit);
	if (j->mem)
		fclose(j->mem);
	free(j->mem_buf);
	free(j->str);
	free(j);
	t->out_priv = NULL;
}

/* -x oformat=json[,pretty], jsonl[,pretty] or xml */
static int json_open(struct cs_trace *t, const char *form, bool pretty, char **ret_err)
{
	struct json *j = udt__xcalloc(1, sizeof(*j));

	(void)ret_err;
	j->form = !strcmp(form, "xml") ? J_XML : !strcmp(form, "jsonl") ? J_LINES : J_DOC;
	j->flags = JSON_C_TO_STRING_NOSLASHESCAPE |
		   (pretty ? JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED : JSON_C_TO_STRING_PLAIN);
	t->out_priv = j;
	return 0;
}

const struct cs_out_ops cs__out_json = {
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
