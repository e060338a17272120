/* SPDX-License-Identifier: MIT */
/*
 * dtrace -h: from the providers of a D program to a C header of probe macros.
 *
 * The header keeps the names the ecosystem relies on, as SystemTap's script
 * and illumos dtrace write them, because real builds post-process headers
 * with sed (CPython: s/PYTHON_/PyDTrace_/, PostgreSQL: s/POSTGRESQL_/TRACE_
 * POSTGRESQL_/g) and test the macros by name:
 *
 *   #define PROV_PROBE(arg0, ...)     on its own line, fires prov:probe
 *   #define PROV_PROBE_ENABLED()      on its own line, non-zero while traced
 *   prov_probe_semaphore              unsigned short, defined by dtrace -G
 *
 * where PROV and PROBE are the names upper-cased with "__" turned into "_",
 * and the semaphore and note keep the names exactly as written ("__" stays).
 *
 * Each macro expands to the site macros of udtrace/sdt.h, whose text is
 * copied into the header (so no include path is needed). The arguments are
 * checked against the provider definition where its types are C's: the
 * header declares, per probe, a function with the definition's parameters
 * (udt__probe_PROV_NAME, never defined), which each site "calls" inside
 * sizeof, so arguments convert as for a prototyped call and a pointer where
 * the .d says int is a compile error naming the probe and the argument
 * (udtrace/sdt.h). Pointers are checked at their first level only, with const
 * added ("char *" accepts "const char *" too, as callers of SystemTap's
 * unchecked macros were used to); multi-level pointers and pointers to
 * types the .d defines itself (often dummies, see dl_type_to_c()) are
 * checked for pointer-ness only. -DUDTRACE_NO_TYPECHECK converts with casts
 * instead. Types are spelled "east const" ("char const *"): memcached's
 * build adds const to "char *" and "void *" with sed, which must not turn
 * ours into "const const".
 *
 * The header has a second branch, taken with -DUDTRACE_DISABLE or on a
 * target without ELF, where every macro is a no-op that does not evaluate
 * its arguments and needs no -G object.
 */
#include "dtrace-h/dtrace-h.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* "request__start" -> "REQUEST_START" */
static char *macro_part(const char *name)
{
	struct udt_strbuf sb = { 0 };

	for (const char *c = name; *c; c++) {
		if (c[0] == '_' && c[1] == '_')
			c++;
		udt__sb_putc(&sb, (char)toupper((unsigned char)*c));
	}
	return udt__sb_take(&sb);
}

static char *macro_name(const struct dl_probe *pr)
{
	char *a = macro_part(pr->provider->name), *b = macro_part(pr->name);
	char *r = udt__xasprintf("%s_%s", a, b);

	free(a);
	free(b);
	return r;
}

/* The include guard from the output file's base name: UDTRACE_HTTP_PROVIDER_H. */
static char *guard_name(const char *out_name)
{
	const char *base = strrchr(out_name, '/');
	struct udt_strbuf sb = { 0 };

	udt__sb_puts(&sb, "UDTRACE_");
	for (const char *c = base ? base + 1 : out_name; *c; c++)
		udt__sb_putc(&sb, isalnum((unsigned char)*c) ? (char)toupper((unsigned char)*c)
							     : '_');
	return udt__sb_take(&sb);
}

/*
 * How a site takes one argument: its kind for sdt.h and the type of the local
 * it initialises (see the file comment for what is checked).
 */
struct argspec {
	const char *kind;      /* "UDT__INT" or "UDT__PTR" */
	const char *ctype;     /* the local's type, spelled in C */
	enum { CHECK_SAME, CHECK_TAG_PTR, CHECK_ANY_PTR } check; /* the check's parameter */
	bool needs_typedef;    /* "T udt__a0" cannot declare it: pass a typedef */
	struct dl_qtype local; /* a checked pointer's type (t NULL otherwise) */
};

/* The integer type to check an integer argument against. */
static const char *int_ctype(struct dl_qtype qt, const char **ret_header)
{
	/* A builtin typedef C also has keeps its name: uint32_t, size_t. */
	for (struct dl_qtype q = qt; q.t->kind == DL_TYPEDEF; q = q.t->ref) {
		const char *h = dl_type_c_header(q);
		if (h) {
			*ret_header = h;
			return q.t->name;
		}
	}
	struct dl_qtype r = dl_type_resolve(qt);

	if (r.t->kind == DL_ENUM)
		return "int";
	if (!strcmp(r.t->name, "_Bool"))
		return "unsigned char";
	return r.t->name;
}

static struct argspec arg_spec(struct dl_program *p, const struct dl_param *a,
			       const char **ret_header)
{
	struct argspec s = { .kind = "UDT__PTR", .ctype = "void const *" };
	struct dl_qtype r = dl_type_resolve(a->type);
	struct dl_qtype to, c;

	switch (r.t->kind) {
	case DL_INT:
	case DL_ENUM:
		s.kind = "UDT__INT";
		s.ctype = int_ctype(a->type, ret_header);
		return s;
	case DL_STRING:
		s.ctype = "char const *";
		return s;
	case DL_FUNC: /* functions and arrays decay, as parameters do */
		to = a->type;
		break;
	case DL_ARRAY:
	case DL_PTR:
		to = r.t->ref;
		break;
	default:
		return s;
	}
	struct dl_qtype tor = dl_type_resolve(to);
	if (tor.t->kind == DL_PTR || tor.t->kind == DL_ARRAY || !dl_type_to_c(p, to, &c))
		return s; /* checked for pointer-ness only */
	if (c.t->kind != DL_FUNC)
		c.quals |= DL_Q_CONST; /* accept pointers to const too */
	for (struct dl_qtype q = to; q.t->kind == DL_TYPEDEF; q = q.t->ref)
		if (dl_type_c_header(q))
			*ret_header = dl_type_c_header(q);
	s.local = (struct dl_qtype){ dl_type_ptr(p, c), 0 };
	s.ctype = dl_type_cdecl_east(p, s.local, NULL);
	/* a declarator around the name (function pointers, arrays) needs a typedef */
	s.needs_typedef = strpbrk(s.ctype, ",([") != NULL;
	/*
	 * A pointer to a tag: C++ tags live in namespaces, which a check
	 * declared at file scope cannot know; the local, declared where the
	 * site is, checks the pointee there (udtrace/sdt.h). An enum has a
	 * forward declaration in C only as an extension: pointer-ness only.
	 */
	if (c.t->kind == DL_STRUCT || c.t->kind == DL_UNION)
		s.check = CHECK_TAG_PTR;
	else if (c.t->kind == DL_ENUM)
		s.check = CHECK_ANY_PTR;
	return s;
}

/*
 * Declare, for C, each struct and union tag that a type declared at file
 * scope names: a tag first seen in a parameter list would be local to it,
 * and not the application's.
 */
static void declare_tags(struct udt_strbuf *sb, struct dl_qtype qt)
{
	const struct dl_type *t = qt.t;

	switch (t->kind) {
	case DL_PTR:
	case DL_ARRAY:
		declare_tags(sb, t->ref);
		return;
	case DL_FUNC:
		declare_tags(sb, t->ref);
		for (size_t i = 0; i < t->param_cnt; i++)
			declare_tags(sb, t->params[i].type);
		return;
	case DL_STRUCT:
	case DL_UNION: {
		char *d = udt__xasprintf("\n%s %s;", t->kind == DL_STRUCT ? "struct" : "union",
					 t->name);
		size_t len = strlen(d);
		const char *at = udt__sb_str(sb);

		while ((at = strstr(at, d)) && at[len] != '\n')
			at++;
		if (!at)
			udt__sb_puts(sb, d);
		free(d);
		return;
	}
	default:
		return;
	}
}

/*
 * One parameter of a probe's check function (see udtrace/sdt.h): named
 * after the argument, "arg1_uri", so the compiler's note about a mismatch
 * shows it; prefixed, so that no application macro (errno, linux) or C++
 * keyword the definition uses as a name can get in the way.
 */
static void check_param(struct udt_strbuf *sb, const struct argspec *s, const char *ctype, size_t i,
			const char *name)
{
	udt__sb_puts(sb, i ? ", " : "");
	if (s->check == CHECK_TAG_PTR)
		udt__sb_printf(sb, "UDT__TAG_PTR(%s) ", ctype);
	else if (s->check == CHECK_ANY_PTR)
		udt__sb_puts(sb, "void const *");
	else
		udt__sb_printf(sb, "%s%s", ctype, ctype[strlen(ctype) - 1] == '*' ? "" : " ");
	udt__sb_printf(sb, "arg%zu%s%s", i, name ? "_" : "", name ? name : "");
}

struct named {
	char *macro;
	const struct dl_probe *probe;
};

static int cmp_named(const void *a, const void *b)
{
	return strcmp(((const struct named *)a)->macro, ((const struct named *)b)->macro);
}

static void signature(struct dl_program *p, struct udt_strbuf *sb, const struct dl_param *v,
		      size_t n)
{
	udt__sb_putc(sb, '(');
	for (size_t i = 0; i < n; i++) {
		if (i)
			udt__sb_puts(sb, ", ");
		udt__sb_puts(sb, dl_type_cdecl(p, v[i].type, v[i].name));
	}
	udt__sb_putc(sb, ')');
}

static void arg_names(struct udt_strbuf *sb, size_t n)
{
	for (size_t i = 0; i < n; i++)
		udt__sb_printf(sb, "%sarg%zu", i ? ", " : "", i);
}

int dh_header(struct dl_program *p, const char *out_name, const char *src_name,
	      struct udt_strbuf *out, char **ret_err)
{
	size_t pv_cnt;
	struct dl_provider *const *pv = dl_program_providers(p, &pv_cnt);
	struct udt_strbuf on = { 0 }, off = { 0 }, types = { 0 }, checks = { 0 }, tags = { 0 };
	bool need_systypes = false;
	char *guard = guard_name(out_name);
	/* Every probe's macro name, to refuse two that would collide. */
	struct named *names = NULL;
	size_t name_cnt = 0, name_cap = 0;
	int ret = 0;

	for (size_t i = 0; i < pv_cnt; i++) {
		for (size_t k = 0; k < pv[i]->probe_cnt; k++) {
			const struct dl_probe *pr = pv[i]->probes[k];
			char *m = macro_name(pr);
			struct udt_strbuf sig = { 0 };

			UDT__PUSH(names, name_cnt, name_cap, ((struct named){ m, pr }));

			udt__sb_printf(&sig, "%s:::%s", pv[i]->name, pr->dname);
			signature(p, &sig, pr->nargs, pr->narg_cnt);
			if (pr->translated) {
				udt__sb_puts(&sig, " : ");
				signature(p, &sig, pr->xargs, pr->xarg_cnt);
			}

			/* enabled branch */
			udt__sb_printf(&on, "/* %s */\n", udt__sb_str(&sig));
			udt__sb_printf(&on, "UDT__SEMAPHORE(%s, %s);\n", pv[i]->name, pr->name);
			udt__sb_printf(&on, "#define %s(", m);
			arg_names(&on, pr->narg_cnt);
			if (!pr->narg_cnt) {
				udt__sb_printf(&on, ") \\\n\tUDT__PROBE0(%s, %s)\n", pv[i]->name,
					       pr->name);
			} else {
				struct udt_strbuf check = { 0 };

				udt__sb_printf(&on, ") \\\n\tUDT__PROBE(%s, %s, %zu", pv[i]->name,
					       pr->name, pr->narg_cnt);
				for (size_t a = 0; a < pr->narg_cnt; a++) {
					const char *hdr = NULL;
					struct argspec s = arg_spec(p, &pr->nargs[a], &hdr);
					const char *ty = s.ctype;
					char *td = NULL;

					if (hdr && !strcmp(hdr, "sys/types.h"))
						need_systypes = true;
					if (s.needs_typedef) {
						ty = td = udt__xasprintf("udt__%s_%s_a%zu_t",
									 pv[i]->name, pr->name, a);
						udt__sb_printf(&types, "typedef %s;\n",
							       dl_type_cdecl_east(p, s.local, td));
					}
					udt__sb_printf(&on, ", \\\n\t\t%s, %s, arg%zu", s.kind, ty, a);
					check_param(&check, &s, ty, a, pr->nargs[a].name);
					if (s.local.t)
						declare_tags(&tags, s.local);
					free(td);
				}
				udt__sb_puts(&on, ")\n");
				udt__sb_printf(&checks, "int udt__probe_%s_%s(%s);\n", pv[i]->name,
					       pr->name, udt__sb_str(&check));
				udt__sb_reset(&check);
			}
			udt__sb_printf(&on, "#define %s_ENABLED() UDT__ENABLED(%s, %s)\n\n", m,
				       pv[i]->name, pr->name);

			/* disabled branch */
			udt__sb_printf(&off, "#define %s(", m);
			arg_names(&off, pr->narg_cnt);
			udt__sb_puts(&off, ") \\\n\tdo {");
			for (size_t a = 0; a < pr->narg_cnt; a++)
				udt__sb_printf(&off, " UDT__NOP(arg%zu);", a);
			udt__sb_puts(&off, " } while (0)\n");
			udt__sb_printf(&off, "#define %s_ENABLED() (0)\n", m);
			udt__sb_reset(&sig);
		}
	}

	/* Two probes whose macros collide ("get__key", "get_key"): sort, compare neighbours. */
	if (name_cnt > 1)
		qsort(names, name_cnt, sizeof(*names), cmp_named);
	for (size_t j = 1; j < name_cnt; j++) {
		const struct dl_probe *a = names[j - 1].probe, *b = names[j].probe;

		if (strcmp(names[j - 1].macro, names[j].macro))
			continue;
		if (a->loc.line > b->loc.line) {
			const struct dl_probe *t = a;
			a = b;
			b = t;
		}
		*ret_err = udt__xasprintf("%s:%d:%d: error: probes '%s' and '%s' of provider '%s' "
					  "would both be fired with macro %s", b->loc.file,
					  b->loc.line, b->loc.col, a->name, b->name,
					  b->provider->name, names[j].macro);
		ret = -1;
		goto out;
	}

	udt__sb_printf(out,
		       "/*\n"
		       " * Generated by udtrace `dtrace -h` from %s: do not edit.\n"
		       " *\n"
		       " * PROVIDER_PROBE(args...) fires a probe; PROVIDER_PROBE_ENABLED() says\n"
		       " * whether anything traces it (use it to skip computing arguments).\n"
		       " * Link with the object `dtrace -G` writes from the same definition.\n"
		       " * Define UDTRACE_DISABLE to compile every probe out.\n"
		       " */\n"
		       "#ifndef %s\n#define %s\n\n"
		       "#include <stddef.h>\n#include <stdint.h>\n%s\n",
		       src_name, guard, guard, need_systypes ? "#include <sys/types.h>\n" : "");
	udt__sb_puts(out, "/* ---- udtrace/sdt.h, copied so that no include path is needed ---- */\n");
	{
		/* the probe-site macros only: a generated header defines no SDT(9) names */
		const char *cut = strstr(udt__sdt_h_text, UDT__SDT9_MARK);

		udt__sb_putn(out, udt__sdt_h_text,
			     cut ? (size_t)(cut - udt__sdt_h_text) : strlen(udt__sdt_h_text));
	}
	udt__sb_puts(out, "/* ---- end of udtrace/sdt.h ---- */\n\n");
	udt__sb_puts(out, "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n");
	udt__sb_puts(out, "#if UDT_SDT_ENABLED\n\n");
	if (tags.len)
		udt__sb_printf(out, "#ifndef __cplusplus%s\n#endif\n\n", udt__sb_str(&tags));
	if (types.len) {
		udt__sb_puts(out, udt__sb_str(&types));
		udt__sb_putc(out, '\n');
	}
	if (checks.len) {
		udt__sb_puts(out, "/* argument checks: declared, never defined (udtrace/sdt.h) */\n");
		udt__sb_puts(out, udt__sb_str(&checks));
		udt__sb_putc(out, '\n');
	}
	udt__sb_puts(out, udt__sb_str(&on));
	udt__sb_puts(out, "#else /* probes compiled out */\n\n");
	udt__sb_puts(out, udt__sb_str(&off));
	udt__sb_puts(out, "\n#endif /* UDT_SDT_ENABLED */\n\n");
	udt__sb_puts(out, "#ifdef __cplusplus\n}\n#endif\n\n");
	udt__sb_printf(out, "#endif /* %s */\n", guard);
out:
	for (size_t j = 0; j < name_cnt; j++)
		free(names[j].macro);
	free(names);
	free(guard);
	udt__sb_reset(&on);
	udt__sb_reset(&off);
	udt__sb_reset(&types);
	udt__sb_reset(&checks);
	udt__sb_reset(&tags);
	return ret;
}
