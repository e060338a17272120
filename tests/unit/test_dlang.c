/* SPDX-License-Identifier: MIT */
/* Unit tests for dlang: the lexer, the parser and the C type model. */
#define HARNESS_MAIN
#include "tests/harness.h"

#include "dlang/dlang.h"
#include "util/util.h"

#ifndef CORPUS_DIR
#define CORPUS_DIR "../shared/corpus"
#endif

static struct dl_program *parse_str(const char *src, bool *ok)
{
	struct dl_program *p = dl_program_new(DL_LP64);

	*ok = dl_parse(p, "t.d", src, strlen(src), false) == 0;
	return p;
}

/* Parse src, expect failure, return the message (static copy). */
static const char *parse_err(const char *src)
{
	static char msg[1024];
	bool ok;
	struct dl_program *p = parse_str(src, &ok);

	snprintf(msg, sizeof(msg), "%s", ok ? "(parsed without error)" : dl_program_errmsg(p));
	dl_program_free(p);
	return msg;
}

static struct dl_probe *find_probe(struct dl_program *p, const char *prov, const char *name)
{
	size_t n;
	struct dl_provider *const *pv = dl_program_providers(p, &n);

	for (size_t i = 0; i < n; i++) {
		if (strcmp(pv[i]->name, prov))
			continue;
		for (size_t k = 0; k < pv[i]->probe_cnt; k++)
			if (!strcmp(pv[i]->probes[k]->name, name))
				return pv[i]->probes[k];
	}
	return NULL;
}

static const char *argtype(struct dl_program *p, struct dl_probe *pr, size_t i)
{
	return dl_type_cdecl(p, pr->nargs[i].type, NULL);
}

/* Parse a corpus file into a new program; NULL (after a failed check) on error. */
static struct dl_program *parse_corpus(const char *name)
{
	char path[512], *buf;
	size_t sz;
	struct dl_program *p;

	snprintf(path, sizeof(path), "%s/%s", CORPUS_DIR, name);
	if (!CHECK_OK(udt__read_file(path, &buf, &sz)))
		return NULL;
	p = dl_program_new(DL_LP64);
	if (!CHECK_EQ(dl_parse(p, name, buf, sz, false), 0)) {
		fprintf(stderr, "%s\n", dl_program_errmsg(p));
		dl_program_free(p);
		p = NULL;
	}
	free(buf);
	return p;
}

/* Files of the corpus that parse without cpp, with their probe counts (MANIFEST.tsv). */
static const struct {
	const char *file;
	size_t probes;
} corpus[] = {
	{ "bind9__libdns_probes.d", 0 },    { "cpython__pydtrace.d", 14 },
	{ "glib__glib_probes.d", 61 },      { "glib__gobject_probes.d", 10 },
	{ "h2o__probes.d", 2 },             { "httpd__apache_probes.d", 161 },
	{ "illumos__iscsi_provider.d", 16 }, { "memcached__memcached_dtrace.d", 31 },
	{ "nodejs__node_provider.d", 4 },   { "openjdk__hotspot_jni.d", 479 },
	{ "perl__perldtrace.d", 3 },        { "php__zend_dtrace.d", 11 },
	{ "tcl__tclDTrace.d", 15 },
};

TEST(corpus_parses_with_manifest_probe_counts)
{
	for (size_t i = 0; i < UDT__ARRAY_SIZE(corpus); i++) {
		struct dl_program *p = parse_corpus(corpus[i].file);
		size_t n, total = 0;

		if (!p)
			continue;
		struct dl_provider *const *pv = dl_program_providers(p, &n);
		CHECK_EQ(n, 1);
		for (size_t k = 0; k < n; k++)
			total += pv[k]->probe_cnt;
		if (!CHECK_EQ(total, corpus[i].probes))
			fprintf(stderr, "  in %s\n", corpus[i].file);
		dl_program_free(p);
	}
}

TEST(php_with_crlf_line_ends)
{
	char path[512], *buf;
	size_t sz;
	struct udt_strbuf crlf = { 0 };

	snprintf(path, sizeof(path), "%s/php__zend_dtrace.d", CORPUS_DIR);
	REQUIRE_OK(udt__read_file(path, &buf, &sz));
	for (size_t i = 0; i < sz; i++) {
		if (buf[i] == '\n')
			udt__sb_putc(&crlf, '\r');
		udt__sb_putc(&crlf, buf[i]);
	}
	struct dl_program *p = dl_program_new(DL_LP64);
	CHECK_EQ(dl_parse(p, "php.d", crlf.buf, crlf.len, false), 0);
	struct dl_probe *pr = find_probe(p, "php", "function__entry");
	if (CHECK(pr)) {
		CHECK_EQ(pr->narg_cnt, 5);
		CHECK_STR(pr->dname, "function-entry");
		/* lines are counted across CR LF */
		CHECK_EQ(pr->loc.line, 31);
	}
	dl_program_free(p);
	udt__sb_reset(&crlf);
	free(buf);
}

TEST(iscsi_translated_args_map_by_name)
{
	struct dl_program *p = parse_corpus("illumos__iscsi_provider.d");

	REQUIRE(p);
	struct dl_probe *pr = find_probe(p, "iscsi", "scsi__command");
	REQUIRE(pr);
	CHECK_EQ(pr->narg_cnt, 2);
	CHECK_EQ(pr->xarg_cnt, 3);
	CHECK_EQ(pr->mapping[0], 0);
	CHECK_EQ(pr->mapping[1], 0);
	CHECK_EQ(pr->mapping[2], 1);
	CHECK_STR(dl_type_cdecl(p, pr->xargs[2].type, NULL), "iscsicmd_t *");
	size_t n;
	struct dl_translator *const *x = dl_program_translators(p, &n);
	CHECK_EQ(n, 3);
	CHECK_STR(x[0]->in_name, "P");
	CHECK_STR(dl_type_cdecl(p, x[0]->in, NULL), "uiscsiproto_t *");
	CHECK_STR(x[0]->members[0].name, "dummy");
	struct dl_provider *const *pv = dl_program_providers(p, &n);
	CHECK_EQ(pv[0]->attr[DL_ATTR_PROVIDER].name_stab, DL_STAB_EVOLVING);
	CHECK_EQ(pv[0]->attr[DL_ATTR_MODULE].dep_class, DL_CLASS_UNKNOWN);
	CHECK_EQ(pv[0]->attr[DL_ATTR_ARGS].dep_class, DL_CLASS_ISA);
	dl_program_free(p);
}

TEST(tcl_types_declared_after_the_provider)
{
	struct dl_program *p = parse_corpus("tcl__tclDTrace.d");

	REQUIRE(p);
	struct dl_probe *pr = find_probe(p, "tcl", "proc__info");
	REQUIRE(pr);
	CHECK_EQ(pr->narg_cnt, 8);
	CHECK_STR(pr->nargs[7].name, "class");
	CHECK_STR(argtype(p, pr, 0), "TclDTraceStr");
	struct dl_type *obj = dl_lookup_tag(p, DL_STRUCT, "Tcl_Obj");
	REQUIRE(obj);
	CHECK(obj->complete);
	/* int refCount; char *bytes; int length; Tcl_ObjType *typePtr; union {...} */
	CHECK_EQ(obj->size, 48);
	CHECK_EQ(obj->members[4].off, 32);
	CHECK_EQ(dl_type_argclass(pr->nargs[0].type), DL_ARG_PTR);
	CHECK_EQ(dl_type_argclass(pr->nargs[4].type), DL_ARG_INT);
	dl_program_free(p);
}

TEST(declarators_and_spelling)
{
	bool ok;
	struct dl_program *p = parse_str(
		"typedef struct foo foo_t;\n"
		"provider t {\n"
		"  probe a(int (*cb)(int, char *), char *argv[], const char *const s);\n"
		"  probe b(unsigned long long, long, signed char, unsigned, short int);\n"
		"  probe c(void);\n"
		"  probe d(string string, foo_t **pp, struct bar *b, enum e { X, Y } v);\n"
		"  probe e();\n"
		"};\n", &ok);
	REQUIRE(ok);
	struct dl_probe *a = find_probe(p, "t", "a");
	REQUIRE(a);
	CHECK_STR(argtype(p, a, 0), "int (*)(int, char *)");
	CHECK_STR(dl_type_cdecl(p, a->nargs[0].type, "cb"), "int (*cb)(int, char *)");
	CHECK_STR(argtype(p, a, 1), "char *[]");
	CHECK_STR(argtype(p, a, 2), "const char *const");
	struct dl_probe *b = find_probe(p, "t", "b");
	CHECK_STR(argtype(p, b, 0), "unsigned long long");
	CHECK_STR(argtype(p, b, 3), "unsigned int");
	CHECK_STR(argtype(p, b, 4), "short");
	CHECK_EQ(find_probe(p, "t", "c")->narg_cnt, 0);
	CHECK_EQ(find_probe(p, "t", "e")->narg_cnt, 0);
	struct dl_probe *d = find_probe(p, "t", "d");
	CHECK_STR(argtype(p, d, 0), "string");
	CHECK_STR(d->nargs[0].name, "string");
	CHECK_STR(argtype(p, d, 1), "foo_t **");
	CHECK_STR(argtype(p, d, 2), "struct bar *");
	CHECK_EQ(dl_type_argclass(d->nargs[3].type), DL_ARG_INT);
	dl_program_free(p);
}

TEST(type_sizes_follow_the_data_model)
{
	const char *src = "provider t { probe a(long, size_t, void *, int64_t, off_t); };";
	struct dl_program *p64 = dl_program_new(DL_LP64), *p32 = dl_program_new(DL_ILP32);

	REQUIRE_EQ(dl_parse(p64, "t.d", src, strlen(src), false), 0);
	REQUIRE_EQ(dl_parse(p32, "t.d", src, strlen(src), false), 0);
	struct dl_probe *a64 = find_probe(p64, "t", "a"), *a32 = find_probe(p32, "t", "a");
	size_t want64[] = { 8, 8, 8, 8, 8 }, want32[] = { 4, 4, 4, 8, 4 };
	for (size_t i = 0; i < 5; i++) {
		CHECK_EQ(dl_type_resolve(a64->nargs[i].type).t->size, want64[i]);
		CHECK_EQ(dl_type_resolve(a32->nargs[i].type).t->size, want32[i]);
	}
	CHECK(dl_type_resolve(a64->nargs[1].type).t->is_signed == false);
	dl_program_free(p64);
	dl_program_free(p32);
}

/* What glibc's headers hold after cpp (-C): GNU C that changes nothing D models. */
TEST(system_header_declarations)
{
	bool ok;
	struct dl_program *p = parse_str(
		"# 1 \"/usr/include/x.h\" 1 3 4\n"
		"typedef unsigned int __id_t;\n"
		"typedef __id_t id_t;\n"
		"typedef long int __time_t;\n"
		"__extension__ typedef long long int __quad_t;\n"
		"typedef int register_t __attribute__ ((__mode__ (__word__)));\n"
		"extern int select (int __nfds, void *__restrict __readfds) __attribute__ ((__nothrow__ , "
		"__leaf__));\n"
		"extern int stat (const char *__restrict __file, void *__restrict __buf) __asm__ (\"\" "
		"\"stat64\");\n"
		"static __inline unsigned short __bswap_16 (unsigned short __bsx)\n"
		"{ return __builtin_bswap16 (__bsx) + sizeof (struct { int a; }); }\n"
		"extern __inline __attribute__ ((__gnu_inline__)) int f (void) { if (1) { } return 0; }\n"
		"extern int getaddrinfo_a (int __mode, struct gaicb *__list[__restrict], int __ent);\n"
		"struct file_handle { unsigned int handle_bytes; unsigned char f_handle[0]; };\n"
		"struct __attribute__ ((__packed__)) pk { __extension__ unsigned long long v; "
		"__int128_t wide; };\n"
		"typedef struct { long fds_bits[1024 / (8 * (int) sizeof (long))]; } fd_set;\n"
		"_Static_assert (sizeof (fd_set) == 128, \"fd_set\");\n"
		"extern __thread int __tls;\n"
		"extern void exit (int) __attribute__ ((__noreturn__));\n"
		"typedef __builtin_va_list __gnuc_va_list;\n"
		"typedef float _Float32x_unused __attribute__ ((__mode__ (__SF__)));\n"
		"# 3 \"t.d\"\n"
		"provider t { probe a(id_t id, fd_set *s, struct file_handle *fh); };\n", &ok);

	if (!ok)
		fprintf(stderr, "%s\n", dl_program_errmsg(p));
	REQUIRE(ok);
	struct dl_probe *a = find_probe(p, "t", "a");
	REQUIRE(a);
	CHECK_STR(argtype(p, a, 0), "id_t");
	CHECK_EQ(dl_type_resolve(a->nargs[0].type).t->is_signed, false);
	CHECK_EQ(dl_type_resolve(dl_type_resolve(a->nargs[1].type).t->ref).t->size, 128);
	CHECK_EQ(dl_type_resolve(dl_type_resolve(a->nargs[2].type).t->ref).t->size, 4);
	dl_program_free(p);
}

/* GNU C words are skipped without nesting calls: no input runs the lexer out of stack. */
TEST(system_header_words_nest_no_calls)
{
	enum { N = 200000 };
	struct udt_strbuf sb = { 0 };

	udt__sb_puts(&sb, "provider p { probe a(int x");
	for (int i = 0; i < N; i++)
		udt__sb_puts(&sb, " __extension__");
	udt__sb_puts(&sb, " __attribute__ ((");
	for (int i = 0; i < N; i++)
		udt__sb_puts(&sb, "__attribute__((");
	for (int i = 0; i < N; i++)
		udt__sb_puts(&sb, "))");
	udt__sb_puts(&sb, ")));\n};\nstatic int f(void) {");
	for (int i = 0; i < N; i++)
		udt__sb_putc(&sb, '{');
	for (int i = 0; i < N; i++)
		udt__sb_putc(&sb, '}');
	udt__sb_puts(&sb, "}\n");
	CHECK_STR(parse_err(udt__sb_str(&sb)), "(parsed without error)");
	udt__sb_reset(&sb);
	CHECK_STR(parse_err("provider p { probe a(int x __attribute__ ((unterminated); };"),
		  "t.d:1:28: error: syntax error: expected '(' after __attribute__");
}

/* A typedef of a name D predefines: the same type through any chain, or an error naming both. */
TEST(predefined_typedefs_redeclared)
{
	CHECK_STR(parse_err("typedef int __pid_t;\ntypedef __pid_t pid_t;\n"
			    "typedef long long int64_t;\n" /* long on LP64: same size and sign */
			    "typedef char *caddr_t;\nprovider p { probe a(pid_t x); };"),
		  "(parsed without error)");
	CHECK_STR(parse_err("typedef unsigned int pid_t;"),
		  "t.d:1:22: error: typedef 'pid_t' as unsigned int conflicts with 'pid_t', "
		  "predefined by D as int");
	CHECK_STR(parse_err("# 97 \"/usr/include/sys/types.h\"\ntypedef int pid_t;\n"
			    "# 3 \"t.d\"\ntypedef long pid_t;"),
		  "t.d:3:14: error: typedef 'pid_t' as long conflicts with 'pid_t' as int "
		  "(declared at /usr/include/sys/types.h:97, as D predefines it)");
	CHECK_STR(parse_err("typedef struct s size_t;"),
		  "t.d:1:18: error: typedef 'size_t' as struct s conflicts with 'size_t', "
		  "predefined by D as unsigned long");
	CHECK_STR(parse_err("typedef int my_t;\ntypedef long my_t;"),
		  "t.d:2:14: error: typedef 'my_t' redefined with a different type (first at "
		  "t.d:1)");
}

TEST(clauses_and_expressions)
{
	bool ok;
	struct dl_program *p = parse_str(
		"BEGIN{}\n"
		"http*:::request-start, syscall::read:entry\n"
		"/ arg0 > 10 && (self->x / 2) != 3 /\n"
		"{ @[probefunc] = count(); self->ts = timestamp; trace(args[1]->hri_uri) }\n"
		"profile-97 { printf(\"%d %s\\n\", sizeof (int), stringof(arg1)); }\n", &ok);
	if (!ok)
		fprintf(stderr, "%s\n", dl_program_errmsg(p));
	REQUIRE(ok);
	size_t n;
	struct dl_clause *const *c = dl_program_clauses(p, &n);
	REQUIRE_EQ(n, 3);
	CHECK_STR(c[0]->pdescs[0], "BEGIN");
	CHECK_EQ(c[1]->pdesc_cnt, 2);
	CHECK_STR(c[1]->pdescs[0], "http*:::request-start");
	CHECK_STR(c[1]->pdescs[1], "syscall::read:entry");
	CHECK(c[1]->predicate && c[1]->predicate->kind == DL_N_BINARY);
	CHECK_EQ(c[1]->stmt_cnt, 3);
	CHECK_STR(c[2]->pdescs[0], "profile-97");
	dl_program_free(p);
}

TEST(errors_name_file_line_and_column)
{
	CHECK_STR(parse_err("provider p {\n  probe a(int x);\n  probe a(int y);\n};"),
		  "t.d:3:9: error: probe 'a' is declared twice in provider 'p' (first at line 2)");
	CHECK_STR(parse_err("provider p {\n\tprobe a(foo_t x);\n};"),
		  "t.d:2:10: error: unknown type name 'foo_t'");
	CHECK_STR(parse_err("provider p {\n\tprobe a(int x) : (char *y);\n};"),
		  "t.d:2:26: error: translated argument 'y' of probe 'a' does not match any "
		  "native argument");
	CHECK_CONTAINS(parse_err("provider p {\n\tprobe a(int x);\n"),
		       "t.d:3:1: error: syntax error: provider 'p' is not closed with '}'");
	CHECK_CONTAINS(parse_err("provider p { probe a(int x) };"), "t.d:1:29: error: syntax "
		       "error: expected ';' after probe declaration");
	CHECK_CONTAINS(parse_err("#pragma D attributes Evolving/Bogus/ISA provider p provider\n"
				 "provider p { };"),
		       "t.d:1:1: error: malformed #pragma D attributes");
	CHECK_CONTAINS(parse_err("#pragma D frobnicate\n"),
		       "t.d:1:1: error: unknown control directive: #pragma D frobnicate");
	CHECK_CONTAINS(parse_err("#pragma D attributes Evolving/Evolving/ISA provider q args\n"),
		       "names provider 'q', which is not defined");
	CHECK_CONTAINS(parse_err("provider p {\n#ifdef X\n\tprobe a(int x);\n#endif\n};"),
		       "t.d:2:1: error: preprocessor directive #ifdef requires cpp: run "
		       "dtrace with -C");
	CHECK_CONTAINS(parse_err("  #  if 0\n"), "t.d:1:3: error: preprocessor directive #if "
		       "requires cpp");
	CHECK_CONTAINS(parse_err("#endif\n"), "directive #endif requires cpp");
	CHECK_STR(parse_err("#include \"x.h\"\nprovider p {\n\tprobe a(foo_t x);\n};"),
		  "t.d:3:10: error: unknown type name 'foo_t' (the #include at t.d:1 is a comment "
		  "without cpp: run dtrace with -C)");
	CHECK_STR(parse_err("#include \"x.h\"\n#define Oid unsigned int\n"
			    "provider p {\n\tprobe a(Oid x);\n};"),
		  "t.d:4:10: error: unknown type name 'Oid' (its #define at t.d:2 is a comment "
		  "without cpp: run dtrace with -C)");
	CHECK_CONTAINS(parse_err("provider p { probe a(double d); };"),
		       "argument 1 of probe 'a' has floating-point type 'double'");
	CHECK_CONTAINS(parse_err("struct s { int a; };\nprovider p { probe a(struct s v); };"),
		       "passes 'struct s' by value");
	CHECK_CONTAINS(parse_err("provider p { probe a(int,int,int,int,int,int,int,int,int,int,"
				 "int,int,int); };"),
		       "probe 'a' has 13 arguments: at most 12 are supported");
	CHECK_CONTAINS(parse_err("/* unterminated\nprovider p {};"),
		       "t.d:1:1: error: unterminated comment");
	CHECK_CONTAINS(parse_err("provider p1 { };"), "must not end in a digit");
	CHECK_CONTAINS(parse_err("provider p { };\nprovider p { };"),
		       "t.d:2:10: error: provider 'p' is already defined at t.d:1");
	CHECK_CONTAINS(parse_err("struct s { int a; };\nstruct s { int b; };"),
		       "t.d:2:8: error: struct s is already defined at t.d:1");
}

/* Without -C, '#' lines other than markers, pragmas and conditionals are comments. */
TEST(hash_comments_without_cpp)
{
	const char *src = "# file: src/util/event_poll.c\n"
			  "#include <sys/types.h>\n"
			  "#define Oid unsigned int\n"
			  "provider ev {\n"
			  "\t# file: src/util/event_poll.c\n"
			  "\t# prefix: event_poll\n"
			  "        # Monitor lifecycle: see /* here, and // there\n"
			  "\tprobe add(int watch, pid_t pid);\n"
			  "#\n"
			  "#error not an error without cpp\n"
			  "\t# 2 probes, not a line marker\n"
			  "\tprobe remove(int watch);\n"
			  "};\n"
			  "# between providers\n"
			  "provider other { probe p(bogus_t x); };\n";
	bool ok;
	struct dl_program *p = parse_str(src, &ok);

	CHECK(!ok);
	/* the error's line counts every comment line: none was read as a line marker */
	CHECK_STR(dl_program_errmsg(p), "t.d:15:26: error: unknown type name 'bogus_t' (the "
		  "#include at t.d:2 is a comment without cpp: run dtrace with -C)");
	struct dl_probe *add = find_probe(p, "ev", "add");
	REQUIRE(add != NULL);
	CHECK_EQ(add->narg_cnt, 2);
	CHECK_STR(argtype(p, add, 1), "pid_t");
	CHECK(find_probe(p, "ev", "remove") != NULL);
	dl_program_free(p);

	/* a well-formed marker is still one */
	CHECK_STR(parse_err("# 7 \"orig.d\"\nprovider p { probe a(bogus_t); };"),
		  "orig.d:7:22: error: unknown type name 'bogus_t'");
	CHECK_STR(parse_err("#line 20\nprovider p { probe a(bogus_t); };"),
		  "t.d:20:22: error: unknown type name 'bogus_t'");
}

TEST(line_markers_from_cpp)
{
	const char *src = "# 1 \"orig.d\"\n# 1 \"<built-in>\"\n# 1 \"orig.d\"\n\n\n"
			  "provider p {\n\tprobe a(bogus_t);\n};\n";
	struct dl_program *p = dl_program_new(DL_LP64);

	CHECK_EQ(dl_parse(p, "/tmp/cpp-out", src, strlen(src), true), -1);
	CHECK_STR(dl_program_errmsg(p), "orig.d:4:10: error: unknown type name 'bogus_t'");
	dl_program_free(p);
}
