/* SPDX-License-Identifier: MIT */
/*
 * CTF traces (-x ctfdir=DIR): the records as a Common Trace Format 1.8 trace
 * that babeltrace2 and Trace Compass read (docs/output.md, "CTF").
 *
 * DIR/metadata is the trace's description in TSDL: the packet header and
 * context, one clock (the records' timestamps: CLOCK_MONOTONIC in
 * nanoseconds, its offset from the epoch measured at the start so that
 * readers show wall-clock times), and an event class for each enabling
 * (ECB) that records something, named by its probe ("http4711:httpd:
 * conn_main:request-done"), whose fields are the values its clause records,
 * named from their D expressions (trace(this->uri) is the field "uri",
 * trace(arg0) "arg0", printf() "printf" and then its arguments').
 *
 * Each thread that fires is a stream, DIR/stream-TID (and dtrace's own
 * thread, where BEGIN, END and tick-n run): its events in the order the
 * thread recorded them, each with a header (the event class, the timestamp)
 * and a context (process, thread, CPU), in packets of at most PACKET_MAX
 * bytes. A packet says how many events of its stream were dropped so far
 * (events_discarded), which babeltrace2 reports as discarded events: a
 * thread's buffer drops go to its stream, and what the target could not
 * record at all to dtrace's.
 *
 * Every field is byte-aligned and little-endian, so an event is the bytes
 * of its values one after another; the metadata is written when the trace
 * starts and again at its end (an enabling made meanwhile, for a library
 * loaded later, adds a class), each time to a temporary file renamed over
 * the last. The aggregations (printa(), and at exit) are not events: they
 * are printed as text on the output, as without -x ctfdir.
 */
#include "output/output.h"
#include "util/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define PACKET_MAX (256u << 10) /* bytes of events in a packet at most (then it is written) */
#define CTF_MAGIC 0xc1fc1fc1u

/* The packet header and context, as the metadata declares them (packed, little-endian). */
struct __attribute__((packed)) packet_head {
	uint32_t magic;
	uint8_t uuid[16];
	uint32_t stream_id;
	uint64_t stream_instance_id;
	uint64_t timestamp_begin, timestamp_end;
	uint64_t content_size, packet_size; /* bits */
	uint64_t packet_seq_num;
	uint64_t events_discarded;
	uint32_t cpu_id;
};

/* An event's header and context. */
struct __attribute__((packed)) event_head {
	uint32_t id;
	uint64_t timestamp;
	int32_t pid, tid;
	uint32_t cpu;
};

/* A thread's stream: its events not written yet. */
struct stream {
	int32_t tid;
	uint8_t *buf;
	size_t len, cap;
	uint64_t first_ts, last_ts; /* of the events in buf */
	uint64_t end_ts;           /* of the last packet written */
	uint64_t seq;              /* packets written */
	uint64_t discarded;        /* events dropped so far */
	bool dirty;                /* discarded changed since the last packet */
};

struct ctf {
	char *dir;
	uint8_t uuid[16];
	int64_t offset_ns;         /* CLOCK_REALTIME - CLOCK_MONOTONIC at the start */
	struct stream *streams;    /* open addressing by tid; cap a power of two */
	size_t nstreams, cap;
	struct stream *cur;        /* the stream of the record being written */
	size_t classes_written;    /* ECBs the metadata has */
	int32_t own_tid;           /* dtrace's thread */
	bool failed;               /* a write failed: said once */
};

static struct ctf *ctf_of(struct out *o)
{
	return o->priv;
}

static void fail(struct out *o, const char *what, int err)
{
	struct ctf *c = ctf_of(o);

	if (!c->failed)
		fprintf(stderr, "dtrace: failed to write the CTF trace in %s: %s: %s\n", c->dir,
			what, strerror(err));
	c->failed = true;
}

/* -- Event classes --------------------------------------------------------------------------- */

static bool is_keyword(const char *s)
{
	static const char *const kw[] = {
		"align", "callsite", "const", "char", "clock", "double", "enum", "env", "event",
		"floating_point", "float", "integer", "int", "long", "short", "signed", "stream",
		"string", "struct", "trace", "typealias", "typedef", "unsigned", "variant", "void",
		"_Bool", "_Complex", "_Imaginary", "sequence", "const", "TRUE", "FALSE",
	};

	for (size_t i = 0; i < UDT__ARRAY_SIZE(kw); i++)
		if (!strcmp(s, kw[i]))
			return true;
	return false;
}

/*
 * sb gets the name of the next field, made of base (NULL: "argN", N its
 * place): an identifier, not a keyword, not one of names.
 */
static void field_name(struct udt_strbuf *sb, const char *base, struct udt_strbuf *names)
{
	struct udt_strbuf n = { 0 };
	char suffix[16] = "", pos[32];
	size_t nfields = 0;

	for (const char *p = names->buf ? names->buf : ""; *p; p++)
		nfields += *p == ' ';
	snprintf(pos, sizeof(pos), "arg%zu", nfields ? nfields - 1 : 0);
	if (!base)
		base = pos;
	for (const char *p = base; *p; p++)
		udt__sb_putc(&n, (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
					 (*p >= '0' && *p <= '9') || *p == '_'
				     ? *p : '_');
	if (!n.len || (n.buf[0] >= '0' && n.buf[0] <= '9'))
		udt__sb_puts(&n, "_v"); /* (rare: keep the digits after a letter) */
	for (int i = 2;; i++) {
		char key[300];
		snprintf(key, sizeof(key), " %s%s ", n.buf, suffix);
		if (!names->buf || !strstr(names->buf, key)) {
			udt__sb_puts(names, key + 1);
			/* a keyword is written "_name": readers strip one leading underscore */
			udt__sb_printf(sb, "%s%s%s", is_keyword(n.buf) || n.buf[0] == '_' ? "_" : "",
				       n.buf, suffix);
			break;
		}
		snprintf(suffix, sizeof(suffix), "_%d", i);
	}
	udt__sb_reset(&n);
}

/* The TSDL type of an integer value of action a (size bytes). */
static void int_type(struct udt_strbuf *sb, unsigned size, bool is_signed, bool hex, bool is_float)
{
	if (is_float)
		udt__sb_printf(sb, "floating_point { exp_dig = %d; mant_dig = %d; align = 8; }",
			       size == 4 ? 8 : 11, size == 4 ? 24 : 53);
	else
		udt__sb_printf(sb, "integer { size = %u; align = 8; signed = %s;%s }",
			       (size ? size : 8) * 8, is_signed ? "true" : "false",
			       hex ? " base = 16;" : "");
}

/* The TSDL of field f (trace()'s value, or a value of printf()), called name. */
static void value_field(struct udt_strbuf *sb, const struct out_field *f, const char *name)
{
	if (f->kind == OUT_F_STR || (f->in_printf && f->kind == OUT_F_STACK)) {
		udt__sb_printf(sb, "\t\tstring %s;\n", name);
	} else if (f->kind == OUT_F_STACK) {
		udt__sb_printf(sb, "\t\tuint32_t _%s_length;\n\t\tuint64_hex_t %s[_%s_length];\n", name,
			       name, name);
	} else {
		udt__sb_puts(sb, "\t\t");
		int_type(sb, f->size, f->in_printf ? f->is_signed || f->is_float || f->addr
						   : f->is_signed,
			 f->addr != OUT_ADDR_NONE, f->is_float);
		udt__sb_printf(sb, " %s;\n", name);
	}
}

/* The fields of the events of an enabling's records, e's. */
static void ecb_fields(struct udt_strbuf *sb, const struct out_ecb *e)
{
	struct udt_strbuf names = { 0 }, nm = { 0 };

	udt__sb_puts(&names, " ");
	for (size_t k = 0; k < e->nfields; k++) {
		const struct out_field *f = &e->fields[k];
		udt__sb_reset(&nm);
		field_name(&nm, f->name, &names);
		switch (f->kind) {
		case OUT_F_PRINT:
		case OUT_F_PRINTF:
			udt__sb_printf(sb, "\t\tstring %s;\n", nm.buf);
			break;
		case OUT_F_MEM:
			udt__sb_printf(sb, "\t\tuint32_t _%s_length;\n\t\tuint8_t %s[_%s_length];\n",
				       nm.buf, nm.buf, nm.buf);
			break;
		default:
			value_field(sb, f, nm.buf);
			break;
		}
	}
	udt__sb_reset(&names);
	udt__sb_reset(&nm);
}

/* -- Metadata ------------------------------------------------------------------------------------ */

static void uuid_text(char *buf, const uint8_t *u)
{
	snprintf(buf, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12],
		 u[13], u[14], u[15]);
}

/* A string for TSDL's double quotes. */
static void quoted(struct udt_strbuf *sb, const char *s)
{
	udt__sb_putc(sb, '"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			udt__sb_putc(sb, '\\');
		udt__sb_putc(sb, (unsigned char)*s < ' ' ? ' ' : *s);
	}
	udt__sb_putc(sb, '"');
}

static void write_metadata(struct out *o)
{
	struct ctf *c = ctf_of(o);
	struct udt_strbuf sb = { 0 };
	char uuid[40], host[256] = "", *tmp = NULL, *path = NULL;
	int64_t off = c->offset_ns;

	uuid_text(uuid, c->uuid);
	(void)gethostname(host, sizeof(host) - 1);
	udt__sb_printf(&sb,
		"/* CTF 1.8 */\n\n"
		"typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
		"typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
		"typealias integer { size = 32; align = 8; signed = true; } := int32_t;\n"
		"typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n"
		"typealias integer { size = 64; align = 8; signed = false; base = 16; } := uint64_hex_t;\n\n"
		"trace {\n\tmajor = 1;\n\tminor = 8;\n\tuuid = \"%s\";\n\tbyte_order = le;\n"
		"\tpacket.header := struct {\n\t\tuint32_t magic;\n\t\tuint8_t uuid[16];\n"
		"\t\tuint32_t stream_id;\n\t\tuint64_t stream_instance_id;\n\t};\n};\n\n",
		uuid);
	udt__sb_puts(&sb, "env {\n\ttracer_name = \"udtrace\";\n\ttracer_major = 0;\n"
			  "\ttracer_minor = 1;\n\tdomain = \"ust\";\n\thostname = ");
	quoted(&sb, host);
	udt__sb_printf(&sb, ";\n\tvpid = %d;\n\tprocname = ", o->pid);
	quoted(&sb, o->execname ? o->execname : "");
	udt__sb_puts(&sb, ";\n};\n\n");
	udt__sb_printf(&sb,
		"clock {\n\tname = \"monotonic\";\n\tuuid = \"%s\";\n"
		"\tdescription = \"CLOCK_MONOTONIC: the D variable timestamp\";\n"
		"\tfreq = 1000000000;\n\tprecision = 1;\n\toffset_s = %lld;\n\toffset = %lld;\n"
		"\tabsolute = false;\n};\n\n"
		"typealias integer { size = 64; align = 8; signed = false; map = clock.monotonic.value; }"
		" := uint64_clock_t;\n\n"
		"stream {\n\tid = 0;\n"
		"\tpacket.context := struct {\n\t\tuint64_clock_t timestamp_begin;\n"
		"\t\tuint64_clock_t timestamp_end;\n\t\tuint64_t content_size;\n"
		"\t\tuint64_t packet_size;\n\t\tuint64_t packet_seq_num;\n"
		"\t\tuint64_t events_discarded;\n\t\tuint32_t cpu_id;\n\t};\n"
		"\tevent.header := struct {\n\t\tuint32_t id;\n\t\tuint64_clock_t timestamp;\n\t};\n"
		"\tevent.context := struct {\n\t\tint32_t _vpid;\n\t\tint32_t _vtid;\n"
		"\t\tuint32_t _cpu_id;\n\t};\n};\n",
		uuid, (long long)(off / 1000000000), (long long)(off % 1000000000));
	for (size_t i = 0; i < o->ndecls; i++) {
		const struct out_decl *d = &o->decls[i];
		udt__sb_printf(&sb, "\nevent {\n\tname = ");
		quoted(&sb, d->probe);
		udt__sb_printf(&sb, ";\n\tid = %u;\n\tstream_id = 0;\n\tfields := struct {\n",
			       d->epid);
		ecb_fields(&sb, d->ecb);
		udt__sb_puts(&sb, "\t};\n};\n");
	}
	c->classes_written = o->ndecls;

	path = udt__xasprintf("%s/metadata", c->dir);
	tmp = udt__xasprintf("%s/.metadata.tmp", c->dir);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, sb.buf, sb.len) != (ssize_t)sb.len || close(fd) ||
	    rename(tmp, path)) {
		int err = errno;
		if (fd >= 0)
			(void)unlink(tmp);
		fail(o, "metadata", err);
	}
	free(tmp);
	free(path);
	udt__sb_reset(&sb);
}

/* -- Streams ------------------------------------------------------------------------------------- */

static struct stream *stream_of(struct out *o, int32_t tid)
{
	struct ctf *c = ctf_of(o);
	size_t mask, i;

	if (c->cur && c->cur->tid == tid)
		return c->cur;
	if (2 * (c->nstreams + 1) > c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 64;
		struct stream *v = udt__xcalloc(cap, sizeof(*v));
		for (size_t k = 0; k < c->cap; k++) {
			if (!c->streams[k].tid)
				continue;
			for (i = (size_t)c->streams[k].tid & (cap - 1); v[i].tid; i = (i + 1) & (cap - 1))
				;
			v[i] = c->streams[k];
		}
		free(c->streams);
		c->streams = v;
		c->cap = cap;
		c->cur = NULL;
	}
	mask = c->cap - 1;
	for (i = (size_t)tid & mask; c->streams[i].tid; i = (i + 1) & mask)
		if (c->streams[i].tid == tid)
			return c->cur = &c->streams[i];
	c->streams[i].tid = tid;
	c->nstreams++;
	return c->cur = &c->streams[i];
}

/* Write the events of s not written yet as a packet (also when none: new discarded events). */
static void write_packet(struct out *o, struct stream *s)
{
	struct ctf *c = ctf_of(o);
	struct packet_head h;

	if (!s->len && !s->dirty)
		return;
	if (!s->len)
		s->first_ts = s->last_ts = s->end_ts; /* (only the drops) */
	h = (struct packet_head){
		.magic = CTF_MAGIC, .stream_id = 0, .stream_instance_id = (uint64_t)(int64_t)s->tid,
		.timestamp_begin = s->first_ts, .timestamp_end = s->last_ts,
		.content_size = 8 * (sizeof(h) + s->len), .packet_size = 8 * (sizeof(h) + s->len),
		.packet_seq_num = s->seq, .events_discarded = s->discarded,
	};
	memcpy(h.uuid, c->uuid, 16);
	if (!c->failed) {
		char *path = udt__xasprintf("%s/stream-%d", c->dir, (int)s->tid);
		int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		bool ok = fd >= 0 && write(fd, &h, sizeof(h)) == (ssize_t)sizeof(h) &&
			  (!s->len || write(fd, s->buf, s->len) == (ssize_t)s->len);
		if (fd >= 0 && close(fd))
			ok = false;
		if (!ok)
			fail(o, path, errno);
		free(path);
	}
	s->end_ts = s->last_ts;
	s->seq++;
	s->len = 0;
	s->dirty = false;
}

static void put(struct stream *s, const void *p, size_t n)
{
	if (s->len + n > s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 4096;
		while (cap < s->len + n)
			cap *= 2;
		s->buf = udt__xreallocarray(s->buf, cap, 1);
		s->cap = cap;
	}
	memcpy(s->buf + s->len, p, n);
	s->len += n;
}

static void put_str(struct stream *s, const char *str)
{
	put(s, str, strlen(str) + 1);
}

/* -- The backend ------------------------------------------------------------------------------ */

static void ctf_record_begin(struct out *o, const struct out_rec *ri)
{
	struct stream *s = stream_of(o, ri->tid ? ri->tid : ctf_of(o)->own_tid);
	/* a stream's events go forward in time (a committed speculation's may be older) */
	uint64_t ts = ri->timestamp < s->end_ts ? s->end_ts : ri->timestamp;
	struct event_head h = { .id = ri->epid, .pid = ri->pid, .tid = ri->tid, .cpu = ri->cpu };

	if (s->len && ts < s->last_ts)
		ts = s->last_ts;
	h.timestamp = ts;
	if (s->len + sizeof(h) > PACKET_MAX)
		write_packet(o, s);
	if (!s->len)
		s->first_ts = ts;
	s->last_ts = ts;
	put(s, &h, sizeof(h));
}

/* An integer of size bytes (1, 2, 4, 8), little-endian. */
static void put_int(struct stream *s, uint64_t v, unsigned size)
{
	put(s, &v, size ? size : 8); /* (x86-64 and the others udtrace runs on are little-endian) */
}

static void ctf_value(struct out *o, const struct out_val *v)
{
	struct ctf *c = ctf_of(o);
	struct stream *s = c->cur;
	if (!s)
		return;
	switch (v->f->kind) {
	case OUT_F_INT:
	case OUT_F_ADDR:
		put_int(s, v->v, v->f->size);
		break;
	case OUT_F_STR:
		put_str(s, v->s);
		break;
	case OUT_F_PRINTF: {
		char *msg = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&msg, &len);
		if (m) {
			out_printf_print(m, v->f->pf, v->args, v->nargs,
					 v->f->pf->names_addrs ? o->cur.namer : NULL);
			fclose(m);
		}
		put(s, msg ? msg : "", msg ? len + 1 : 1);
		free(msg);
		for (size_t i = 0; i < v->nargs; i++) {
			if (v->args[i].s)
				put_str(s, v->args[i].s);
			else
				put_int(s, v->args[i].v, v->args[i].size);
		}
		break;
	}
	case OUT_F_STACK: {
		uint32_t n = 0;
		while (n < v->f->nframes && memcmp(v->bytes + 8 * (size_t)n, "\0\0\0\0\0\0\0\0", 8))
			n++;
		put(s, &n, 4);
		put(s, v->bytes, 8 * (size_t)n);
		break;
	}
	case OUT_F_MEM: {
		uint32_t n = v->size;
		put(s, &n, 4);
		put(s, v->bytes, n);
		break;
	}
	case OUT_F_PRINT: {
		char *text = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&text, &len);
		if (m) {
			out__print_value(m, v);
			fclose(m);
		}
		put(s, text ? text : "", text ? len + 1 : 1);
		free(text);
		break;
	}
	}
}

static void ctf_record_end(struct out *o)
{
	struct ctf *c = ctf_of(o);

	if (c->cur && c->cur->len >= PACKET_MAX)
		write_packet(o, c->cur);
}

static void ctf_drop(struct out *o, const struct out_drop *d)
{
	struct ctf *c = ctf_of(o);
	struct stream *s;

	/* records lost: a thread's from its stream, the target's others from dtrace's */
	if (d->kind == OUT_DROP_PRINCIPAL && d->tid)
		s = stream_of(o, d->tid);
	else if (d->kind == OUT_DROP_LOST || d->kind == OUT_DROP_SPEC)
		s = stream_of(o, c->own_tid);
	else
		return;
	/* a packet says the drops since the last one: the events read before the drop go
	   first (or, in a new stream, a packet that has none yet) */
	if (s->len || !s->seq) {
		s->dirty = true;
		write_packet(o, s);
	}
	s->discarded += d->count;
	s->dirty = true;
	write_packet(o, s);
}

static void ctf_agg(struct out *o, const struct out_aggprint *ap)
{
	out__text.agg(o, ap);
}

static void ctf_start(struct out *o)
{
	struct ctf *c = ctf_of(o);

	if (mkdir(c->dir, 0755) && errno != EEXIST)
		fail(o, c->dir, errno);
	write_metadata(o);
}

static void ctf_finish(struct out *o)
{
	struct ctf *c = ctf_of(o);

	for (size_t i = 0; i < c->cap; i++)
		if (c->streams[i].tid)
			write_packet(o, &c->streams[i]);
	if (c->classes_written != o->ndecls)
		write_metadata(o);
}

static void ctf_free(struct out *o)
{
	struct ctf *c = ctf_of(o);

	if (!c)
		return;
	for (size_t i = 0; i < c->cap; i++)
		free(c->streams[i].buf);
	free(c->streams);
	free(c->dir);
	free(c);
	o->priv = NULL;
}

/*
 * -x ctfdir=DIR: a directory that is empty, or one that its parent lets us
 * make when the trace starts (so that a script that does not compile leaves
 * nothing); the trace's uuid and clock offset.
 */
static int ctf_open(struct out *o, const char *form, bool pretty, char **ret_err)
{
	const char *dir = o->o->ctfdir;
	struct ctf *c;
	struct timespec rt, mono;

	(void)form;
	(void)pretty;
	DIR *d = opendir(dir);
	if (d) {
		/* an old trace's streams would mix with ours */
		bool empty = true;
		for (struct dirent *de; empty && (de = readdir(d));)
			empty = !strcmp(de->d_name, ".") || !strcmp(de->d_name, "..");
		closedir(d);
		if (!empty) {
			*ret_err = udt__xasprintf("failed to set -x ctfdir: %s: not empty (a trace "
						  "goes into a new directory)", dir);
			return -1;
		}
	} else {
		char *parent = udt__xstrdup(dir), *slash;
		while ((slash = strrchr(parent, '/')) && slash > parent && !slash[1])
			*slash = 0; /* (trailing slashes) */
		slash = strrchr(parent, '/');
		if (slash)
			slash[slash == parent] = 0;
		int err = errno != ENOENT ? errno
			  : access(slash ? parent : ".", W_OK | X_OK) ? errno : 0;
		free(parent);
		if (err) {
			*ret_err = udt__xasprintf("failed to set -x ctfdir: %s: %s", dir,
						  strerror(err));
			return -1;
		}
	}
	c = udt__xcalloc(1, sizeof(*c));
	c->dir = udt__xstrdup(dir);
	c->own_tid = (int32_t)syscall(SYS_gettid);
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || read(fd, c->uuid, 16) != 16) {
		/* (any unique id does: the time and our pid) */
		uint64_t now = udt__now_ns(), pid = (uint64_t)getpid();
		memcpy(c->uuid, &now, 8);
		memcpy(c->uuid + 8, &pid, 8);
	}
	if (fd >= 0)
		close(fd);
	c->uuid[6] = (uint8_t)((c->uuid[6] & 0x0f) | 0x40); /* a version 4 UUID */
	c->uuid[8] = (uint8_t)((c->uuid[8] & 0x3f) | 0x80);
	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	c->offset_ns = ((int64_t)rt.tv_sec - mono.tv_sec) * 1000000000 + (rt.tv_nsec - mono.tv_nsec);
	o->priv = c;
	return 0;
}

const struct out_ops out__ctf = {
	.open = ctf_open,
	.start = ctf_start,
	.finish = ctf_finish,
	.record_begin = ctf_record_begin,
	.value = ctf_value,
	.record_end = ctf_record_end,
	.agg = ctf_agg,
	.drop = ctf_drop,
	.free = ctf_free,
};
