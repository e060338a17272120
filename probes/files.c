/* SPDX-License-Identifier: MIT */
/*
 * Which processes may have the probes descriptions name, without opening
 * them (docs/processes.md, "A description without -p or -c"): from the
 * files a process maps, each file's providers read once (its -G tables and
 * SystemTap notes: pr_file_providers()), remembered by device and inode.
 * A file whose providers only its runtime can name (SDT(9) providers, the
 * runtime itself) may match any description.
 */
#include "probes/probes.h"
#include "util/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* One file's providers: cnt < 0, not an object with probes; "*": any. */
struct pb_file {
	dev_t dev;
	ino_t ino;
	char **provs;
	int cnt;
};

/* The providers of the file (dev, ino), which pid (0: none) maps at path: found once. */
static const struct pb_file *file_of(struct pb_files *fs, pid_t pid, dev_t dev, ino_t ino,
				     const char *path)
{
	for (size_t i = 0; i < fs->cnt; i++)
		if (fs->v[i].dev == dev && fs->v[i].ino == ino)
			return &fs->v[i];
	struct pb_file f = { .dev = dev, .ino = ino };
	/* (as the process sees it: its mount namespace, its root) */
	char *where = pid ? udt__xasprintf("/proc/%d/root%s", (int)pid, path) : udt__xstrdup(path);
	f.cnt = pr_file_providers(where, &f.provs);
	free(where);
	if (f.cnt == 0)
		f.cnt = -1;
	if (f.cnt < 0 && pid)
		return NULL; /* (could not be read: not remembered, it may be next time) */
	UDT__PUSH(fs->v, fs->cnt, fs->cap, f);
	return &fs->v[fs->cnt - 1];
}

/* How one of descs may match a probe of f's providers in process pid. */
static enum pb_fmatch file_matches(const struct pb_file *f, const char *const *descs, size_t n,
				   pid_t pid)
{
	enum pb_fmatch m = PB_FM_NONE;

	for (int i = 0; f && i < f->cnt; i++) {
		char prov[300];
		if (!strcmp(f->provs[i], "*")) {
			m = PB_FM_ANY;
			continue;
		}
		snprintf(prov, sizeof(prov), "%s%d", f->provs[i], (int)pid);
		for (size_t d = 0; d < n; d++)
			if (pb_desc_match_prov(descs[d], prov))
				return PB_FM_NAMED;
	}
	return m;
}

int pb_files_proc(struct pb_files *fs, const char *const *descs, size_t n, pid_t pid,
		  enum pb_fmatch *ret_match, uint64_t *ret_sig)
{
	char path[64], *buf = NULL;
	size_t len;
	uint64_t sig = 0xcbf29ce484222325ull;
	enum pb_fmatch match = PB_FM_NONE;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	int err = udt__read_file(path, &buf, &len);
	if (err)
		return err == -ENOENT ? -ESRCH : err;
	/* ("start-end perms offset major:minor inode path": a file's mapping has an inode) */
	for (char *line = buf, *nl; line && *line; line = nl) {
		unsigned maj, min;
		unsigned long long ino;
		int at = 0;
		nl = strchr(line, '\n');
		if (nl)
			*nl++ = '\0';
		if (sscanf(line, "%*x-%*x %*s %*x %x:%x %llu %n", &maj, &min, &ino, &at) != 3 ||
		    !ino || line[at] != '/' || strstr(line + at, " (deleted)"))
			continue;
		sig = (sig ^ ino ^ ((uint64_t)makedev(maj, min) << 32)) * 0x100000001b3ull;
		if (match != PB_FM_NAMED) {
			enum pb_fmatch m = file_matches(file_of(fs, pid, makedev(maj, min), (ino_t)ino,
								line + at), descs, n, pid);
			match = m > match ? m : match;
		}
	}
	free(buf);
	*ret_match = match;
	*ret_sig = sig;
	return 0;
}

enum pb_fmatch pb_files_path(struct pb_files *fs, const char *const *descs, size_t n,
			     const char *path, pid_t pid)
{
	struct stat st;

	if (stat(path, &st))
		return PB_FM_NONE;
	return file_matches(file_of(fs, 0, st.st_dev, st.st_ino, path), descs, n, pid);
}

void pb_files_free(struct pb_files *fs)
{
	for (size_t i = 0; i < fs->cnt; i++) {
		for (int k = 0; k < fs->v[i].cnt; k++)
			free(fs->v[i].provs[k]);
		free(fs->v[i].provs);
	}
	free(fs->v);
	memset(fs, 0, sizeof(*fs));
}

/* dtrace -l without -p or -c */

/* A process listed: its probes moved out to the list, but for their argument types. */
struct every_proc {
	struct pr_proc proc;
	struct pb_probes probes;
};

struct pb_every {
	struct every_proc **v;
	size_t cnt, cap;
};

struct pb_every *pb_every_probes(struct pb_probes *ps, const char *const *descs, size_t desc_cnt)
{
	struct pb_files files = { 0 };
	struct pb_every *e = udt__xcalloc(1, sizeof(*e));
	const char **pd = NULL;
	size_t cap = 0, npd = 0;
	pid_t *pids = NULL;

	for (size_t d = 0; d < desc_cnt; d++)
		if (pb_desc_kind(descs[d]) == PB_DESC_PROC)
			UDT__PUSH(pd, npd, cap, descs[d]);
	size_t n = npd ? pr_pids(&pids) : 0;
	/* (the processes' probes are numbered after what ps has) */
	uint32_t next = ps->cnt ? ps->v[ps->cnt - 1].id + 1 : PB_PROBE_ERROR + 1;
	for (size_t i = 0; i < n; i++) {
		enum pb_fmatch match;
		uint64_t sig;
		if (pids[i] == getpid() ||
		    pb_files_proc(&files, pd, npd, pids[i], &match, &sig) || !match)
			continue;
		struct every_proc *ep = udt__xcalloc(1, sizeof(*ep));
		if (pr_proc_open(&ep->proc, pids[i])) {
			/* (gone meanwhile, or not ours to read: listed by none) */
			pr_proc_close(&ep->proc);
			free(ep);
			continue;
		}
		pb_probes_load_at(&ep->probes, &ep->proc, next);
		next += (uint32_t)(ep->probes.cnt - PB_PROBE_ERROR);
		pb_probes_move(ps, &ep->probes);
		UDT__PUSH(e->v, e->cnt, e->cap, ep);
	}
	free(pids);
	free(pd);
	pb_files_free(&files);
	return e;
}

void pb_every_free(struct pb_every *e)
{
	if (!e)
		return;
	for (size_t i = 0; i < e->cnt; i++) {
		pb_probes_free(&e->v[i]->probes);
		pr_proc_close(&e->v[i]->proc);
		free(e->v[i]);
	}
	free(e->v);
	free(e);
}
