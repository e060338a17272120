/* SPDX-License-Identifier: MIT */
/*
 * Addresses of the traced process as DTrace names them: `module`function+0xoff`
 * (docs/profile.md, "Stacks"), for ustack(), uaddr(), usym(), ufunc() and
 * umod().
 *
 * The symbolizer keeps a process handle of its own (proc/proc.c reads
 * the mappings and the ELF symbol tables; the probes' handle is never
 * touched, so its modules stay where the probes point). An address in no
 * module it knows makes it read /proc/PID/maps again, and when the mappings
 * changed (a library dlopen'ed since), open the process afresh: so libraries
 * loaded after the attach are named. It stops doing so once the process is
 * gone, and keeps what it had: addresses are named after the exit too, from
 * the files (symbols are read lazily, by path when /proc/PID/root is gone).
 * Every address named is kept in a cache, so that a stack seen again costs
 * lookups of memory only.
 *
 * A return address (every frame of a stack but the first) is looked up one
 * byte before it: a call that ends a function (to a function that does not
 * return) leaves a return address past the function's end. The offset
 * printed is the address's own, as DTrace prints it.
 */
#include "proc/proc.h"
#include "util/util.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CACHE_MIN 1024
#define MAPS_EVERY_NS 20000000ull /* a miss reads the mappings at most every 20 ms */

struct entry {
	uint64_t key;              /* pc << 2 | kind; 0 empty */
	char *text;
};

struct pr_syms {
	pid_t pid;
	struct pr_proc proc;
	bool open;
	bool gone;                 /* the process exited: no more reopening */
	char *maps;                /* /proc/PID/maps as last read */
	uint64_t maps_at;
	struct entry *cache;
	size_t cache_cnt, cache_cap;
};

static char *read_maps(pid_t pid)
{
	char path[64], buf[65536];
	struct udt_strbuf sb = { 0 };
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	while ((n = read(fd, buf, sizeof(buf) - 1)) > 0) {
		buf[n] = '\0';
		udt__sb_puts(&sb, buf);
	}
	close(fd);
	if (!sb.buf)
		return NULL; /* a zombie has no mappings: keep the ones we know */
	return udt__sb_take(&sb);
}

struct pr_syms *pr_syms_new(pid_t pid)
{
	struct pr_syms *s = udt__xcalloc(1, sizeof(*s));

	s->pid = pid;
	s->maps = read_maps(pid);
	s->maps_at = udt__now_ns();
	s->open = !pr_proc_open(&s->proc, pid);
	return s;
}

void pr_syms_free(struct pr_syms *s)
{
	if (!s)
		return;
	if (s->open)
		pr_proc_close(&s->proc);
	for (size_t i = 0; i < s->cache_cap; i++)
		free(s->cache[i].text);
	free(s->cache);
	free(s->maps);
	free(s);
}

/* The mappings changed since we read them: open the process again (the old handle goes). */
static bool refresh(struct pr_syms *s)
{
	uint64_t now = udt__now_ns();

	if (s->gone || now - s->maps_at < MAPS_EVERY_NS)
		return false;
	s->maps_at = now;
	char *maps = read_maps(s->pid);
	if (!maps) {
		s->gone = true;
		return false;
	}
	if (s->maps && !strcmp(maps, s->maps)) {
		free(maps);
		return false;
	}
	struct pr_proc p;
	if (pr_proc_open(&p, s->pid)) {
		free(maps);
		return false;
	}
	if (s->open)
		pr_proc_close(&s->proc);
	s->proc = p;
	s->open = true;
	free(s->maps);
	s->maps = maps;
	return true;
}

static uint64_t hash64(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return k;
}

static struct entry *cache_slot(struct pr_syms *s, uint64_t key)
{
	size_t mask = s->cache_cap - 1;

	for (size_t i = hash64(key) & mask;; i = (i + 1) & mask)
		if (!s->cache[i].key || s->cache[i].key == key)
			return &s->cache[i];
}

static void cache_put(struct pr_syms *s, uint64_t key, char *text)
{
	if (2 * (s->cache_cnt + 1) > s->cache_cap) {
		struct entry *old = s->cache;
		size_t n = s->cache_cap;
		s->cache_cap = n ? 2 * n : CACHE_MIN;
		s->cache = udt__xcalloc(s->cache_cap, sizeof(*s->cache));
		for (size_t i = 0; i < n; i++)
			if (old[i].key)
				*cache_slot(s, old[i].key) = old[i];
		free(old);
	}
	*cache_slot(s, key) = (struct entry){ key, text };
	s->cache_cnt++;
}

/* The name of pc: uncached. */
static char *name_of(struct pr_syms *s, uint64_t pc, enum pr_symfmt kind, bool ret)
{
	struct pr_module *mod = NULL;
	const struct pr_sym *sym = NULL;
	uint64_t at = ret && pc ? pc - 1 : pc;

	if (s && s->open) {
		mod = pr_proc_module_at(&s->proc, at);
		if (!mod && refresh(s))
			mod = pr_proc_module_at(&s->proc, at);
		if (mod && kind != PR_SYM_MOD && pr_proc_symbolize(&s->proc, at, &mod, &sym))
			sym = NULL;
	}
	if (!mod)
		return udt__xasprintf("0x%llx", (unsigned long long)pc);
	if (kind == PR_SYM_MOD)
		return udt__xstrdup(mod->name);
	if (!sym)
		return udt__xasprintf("%s`0x%llx", mod->name, (unsigned long long)pc);
	if (kind == PR_SYM_FUNC || pc == sym->addr)
		return udt__xasprintf("%s`%s", mod->name, sym->name);
	return udt__xasprintf("%s`%s+0x%llx", mod->name, sym->name,
			      (unsigned long long)(pc - sym->addr));
}

const char *pr_syms_name(struct pr_syms *s, uint64_t pc, enum pr_symfmt kind, bool ret)
{
	static char *uncached;
	uint64_t key = (pc << 3) | ((uint64_t)kind << 1) | ret;

	if (!s || !key || pc >> 61) {
		free(uncached);
		uncached = name_of(s, pc, kind, ret);
		return uncached;
	}
	if (s->cache_cap) {
		struct entry *e = cache_slot(s, key);
		if (e->key)
			return e->text;
	}
	char *text = name_of(s, pc, kind, ret);
	cache_put(s, key, text);
	return text;
}
