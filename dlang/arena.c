/* SPDX-License-Identifier: MIT */
/*
 * The program arena and string-keyed symbol tables.
 *
 * Everything a parse creates (tokens' text, types, AST nodes, providers) is
 * allocated here and freed only with the program. This lets the parser stop
 * at the first error with a longjmp and still leak nothing.
 */
#include "dlang/internal.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

struct dl_chunk {
	struct dl_chunk *next;
	size_t used;
	size_t cap;
	max_align_t data[];
};

#define DL_CHUNK_MIN (64u * 1024u)

void *dl_alloc(struct dl_program *p, size_t sz)
{
	struct dl_arena *a = &p->arena;
	size_t al = _Alignof(max_align_t);

	sz = (sz + al - 1) & ~(al - 1);
	if (!a->head || a->head->cap - a->head->used < sz) {
		size_t cap = sz > DL_CHUNK_MIN ? sz : DL_CHUNK_MIN;
		struct dl_chunk *c = udt__xmalloc(sizeof(*c) + cap);

		c->next = a->head;
		c->used = 0;
		c->cap = cap;
		a->head = c;
	}
	void *r = (char *)a->head->data + a->head->used;
	a->head->used += sz;
	memset(r, 0, sz);
	return r;
}

char *dl_strndup(struct dl_program *p, const char *s, size_t len)
{
	char *r = dl_alloc(p, len + 1);

	memcpy(r, s, len);
	r[len] = '\0';
	return r;
}

char *dl_strdup(struct dl_program *p, const char *s)
{
	return dl_strndup(p, s, strlen(s));
}

char *dl_printf(struct dl_program *p, const char *fmt, ...)
{
	struct udt_strbuf sb = { 0 };
	va_list ap;

	va_start(ap, fmt);
	udt__sb_vprintf(&sb, fmt, ap);
	va_end(ap);
	char *r = dl_strdup(p, udt__sb_str(&sb));
	udt__sb_reset(&sb);
	return r;
}

void dl_arena_free(struct dl_arena *a)
{
	struct dl_chunk *c = a->head;

	while (c) {
		struct dl_chunk *next = c->next;
		free(c);
		c = next;
	}
	a->head = NULL;
}

void dl_push(struct dl_program *p, void *arrp, size_t *cnt, size_t *cap, size_t elem_sz,
	     const void *elem)
{
	char **arr = arrp;

	if (*cnt == *cap) {
		size_t ncap = *cap ? *cap * 2 : 8;
		char *n = dl_alloc(p, ncap * elem_sz);

		if (*cnt)
			memcpy(n, *arr, *cnt * elem_sz);
		*arr = n;
		*cap = ncap;
	}
	memcpy(*arr + *cnt * elem_sz, elem, elem_sz);
	(*cnt)++;
}

static size_t hash(const char *s)
{
	size_t h = 1469598103934665603ull;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

void *dl_sym_get(const struct dl_symtab *t, const char *key)
{
	if (!t->cap)
		return NULL;
	for (size_t i = hash(key) & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
		if (!t->keys[i])
			return NULL;
		if (!strcmp(t->keys[i], key))
			return t->vals[i];
	}
}

void dl_sym_put(struct dl_program *p, struct dl_symtab *t, const char *key, void *val)
{
	if (2 * (t->cnt + 1) > t->cap) {
		struct dl_symtab n = { 0 };

		n.cap = t->cap ? t->cap * 2 : 64;
		n.keys = dl_alloc(p, n.cap * sizeof(*n.keys));
		n.vals = dl_alloc(p, n.cap * sizeof(*n.vals));
		for (size_t i = 0; i < t->cap; i++)
			if (t->keys[i])
				dl_sym_put(p, &n, t->keys[i], t->vals[i]);
		*t = n;
	}
	size_t i = hash(key) & (t->cap - 1);

	while (t->keys[i] && strcmp(t->keys[i], key))
		i = (i + 1) & (t->cap - 1);
	if (!t->keys[i]) {
		t->keys[i] = dl_strdup(p, key);
		t->cnt++;
	}
	t->vals[i] = val;
}
