/* SPDX-License-Identifier: MIT */
/*
 * Macro arguments: $0 is the script, $1... the operands that follow it on
 * dtrace's command line. In an expression, $1 is the integer its argument
 * spells (DTrace reads any other argument as an identifier), $$1 always the
 * string; in a probe description both are the argument's text. An argument
 * no clause refers to is an error unless -x defaultargs, which also makes
 * missing ones 0 and "".
 */
#include "dlang/internal.h"
#include "util/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void dl_program_set_macros(struct dl_program *p, const char *const *argv, size_t argc,
			   bool defaultargs)
{
	p->margv = dl_alloc(p, (argc + 1) * sizeof(*p->margv));
	p->margs_used = dl_alloc(p, argc + 1);
	for (size_t i = 0; i < argc; i++)
		p->margv[i] = dl_strdup(p, argv[i]);
	p->margc = argc;
	p->defaultargs = defaultargs;
}

void dl_program_set_defaultargs(struct dl_program *p, bool defaultargs)
{
	p->defaultargs = defaultargs;
}

/* The index of macro name "1", "23"; -1 if it is not a number. */
static long macro_index(const char *name)
{
	char *end;
	long i;

	if (!*name || name[0] < '0' || name[0] > '9')
		return -1;
	i = strtol(name, &end, 10);
	return *end || i < 0 ? -1 : i;
}

const char *dl_macro_arg(struct dl_program *p, const char *name, bool *ret_numbered)
{
	long i = macro_index(name);

	*ret_numbered = i >= 0;
	if (i < 0)
		return NULL;
	if ((size_t)i < p->margc) {
		p->margs_used[i] = true;
		return p->margv[i];
	}
	return p->defaultargs ? "" : NULL;
}

const char *dl_expand_pdesc(struct dl_program *p, const char *pd, char **ret_bad)
{
	const char *d = strchr(pd, '$');
	struct udt_strbuf sb = { 0 };

	*ret_bad = NULL;
	if (!d)
		return pd;
	for (const char *s = pd; *s;) {
		size_t skip = s[0] == '$' ? (s[1] == '$' ? 2 : 1) : 0;
		size_t n = 0;
		while (skip && s[skip + n] >= '0' && s[skip + n] <= '9')
			n++;
		if (!skip || !n) {
			udt__sb_putc(&sb, *s++);
			continue;
		}
		char *name = dl_strndup(p, s + skip, n);
		bool numbered;
		const char *v = dl_macro_arg(p, name, &numbered);
		if (!v) {
			*ret_bad = name;
			udt__sb_reset(&sb);
			return NULL;
		}
		udt__sb_puts(&sb, v);
		s += skip + n;
	}
	char *out = dl_strdup(p, udt__sb_str(&sb));
	udt__sb_reset(&sb);
	return out;
}

int dl_program_check_macros(const struct dl_program *p, char **ret_err)
{
	if (p->defaultargs)
		return 0;
	for (size_t i = 1; i < p->margc; i++) {
		if (!p->margs_used[i]) {
			*ret_err = udt__xasprintf("extraneous argument '%s' ($%zu is not referenced)",
						  p->margv[i], i);
			return -1;
		}
	}
	return 0;
}
