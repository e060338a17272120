/* SPDX-License-Identifier: MIT */
/*
 * The session's shared memory, as the consumer trusts it: not at all.
 *
 * The target makes the memory (a memfd) and may write any byte of it at any
 * time: a compromised service, or a program that means harm to whoever
 * traces it. So (docs/runtime.md, "Trust"):
 *
 *  - The file is opened as a path only, checked to be a regular file (no
 *    device or FIFO is ever opened), reopened, and mapped only if it is
 *    sealed against shrinking and growing (F_SEAL_SHRINK | F_SEAL_GROW,
 *    which the runtime adds, and which no one can take away): the target
 *    cannot truncate it under our mapping, so reading it never raises
 *    SIGBUS. Its size is the file's, never the control block's word.
 *  - The header is copied once, when the memory is mapped, and checked
 *    there: every region inside the mapping (overflow-checked), aligned, and
 *    every size the one this consumer chose (threads, buffer policy and
 *    sizes, variables, speculations). Every reader takes offsets, counts and
 *    sizes from that copy (t->sh), never from the mapping.
 *  - Each round the live header is compared with the copy. A change, or any
 *    other inconsistency a reader finds (an aggregation table's hash, the
 *    dynamic variable space's header), is corruption: reported once, and
 *    the memory is read no more (cs__shm_usable() is false); dtrace prints
 *    what it had and exits non-zero.
 *  - What the readers take from the live memory (a buffer's offsets,
 *    records, tables) they bound by the copy's sizes, and records are copied
 *    out before they are parsed (drain.c), so a value read twice is the same.
 */
#include "consumer/internal.h"
#include "vm/vm_mem.h"
#include "util/util.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define LOAD_ACQUIRE(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)

/* The header's layout: what the runtime writes once, before the memory is published. */
#define LAYOUT_FIELDS(X)                                                                       \
	X(size) X(magic) X(version) X(session) X(total_sz) X(bufsize) X(policy) X(tbuf_max)   \
	X(tbuf_off) X(data_off) X(agg_off) X(aggsize) X(tvar_off) X(tvarsize) X(gvar_off)     \
	X(ngvars) X(spec_off) X(spec_data_off) X(nspec) X(specsize) X(ring_chunk)            \
	X(tlocal_off) X(tlocal_sz) X(gstr_off) X(dyn_off) X(dyn_sz) X(seg0_tbufs)

static const struct field {
	const char *name;
	size_t off, sz;
} layout[] = {
#define FIELD(f) { #f, offsetof(struct udt_shm_hdr, f), sizeof(((struct udt_shm_hdr *)0)->f) },
	LAYOUT_FIELDS(FIELD)
#undef FIELD
};

/* The dynamic variable space's geometry, written once by the runtime too. */
#define DYN_FIELDS(X) X(size) X(chunk_sz) X(hash_bits) X(chunk_cnt) X(chunks_off)

static const struct field dyn_layout[] = {
#define FIELD(f) { #f, offsetof(struct udt_dynhdr, f), sizeof(((struct udt_dynhdr *)0)->f) },
	DYN_FIELDS(FIELD)
#undef FIELD
};

void cs__shm_corrupt(struct cs_trace *t, const char *fmt, ...)
{
	char what[160];
	va_list ap;

	if (t->shm_bad)
		return;
	t->shm_bad = true;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	fflush(t->out);
	fprintf(stderr, "dtrace: pid %d corrupted the buffers it shares with dtrace (%s): "
		"no more is read from them\n", t->proc ? (int)t->proc->pid : 0, what);
}

/* [off, off + cnt * sz) lies within size bytes, and off is a multiple of al (or it is empty). */
static bool region_ok(uint64_t size, uint64_t off, uint64_t cnt, uint64_t sz, uint64_t al)
{
	uint64_t len;

	if (__builtin_mul_overflow(cnt, sz, &len))
		return false;
	return !len || (off % al == 0 && off <= size && len <= size - off);
}

/*
 * Is h (a copy) the header of a memory of size bytes made for this session
 * as this consumer asked? NULL if so, else the first thing that is not.
 */
static const char *layout_check(const struct cs_trace *t, const struct udt_shm_hdr *h,
				uint64_t size)
{
	uint64_t ngvars = dl_program_var_count(t->prog, DL_VAR_GLOBAL);
	uint64_t nspec = t->spec_used ? t->o.nspec : 0;

	if (h->size != sizeof(*h) || h->magic != UDT_SHM_MAGIC || h->version != UDT_ABI_VERSION)
		return "not a header of this version";
	if (h->session != t->session)
		return "another session's";
	if (h->total_sz != size)
		return "its size is not the file's";
	if (h->policy != t->o.policy || h->tbuf_max != t->o.tbuf_max ||
	    h->seg0_tbufs != (t->o.tbuf_max < UDT_SEG0_TBUFS ? t->o.tbuf_max : UDT_SEG0_TBUFS) ||
	    h->aggsize != (t->aggvar_cnt ? t->o.aggsize : 0) ||
	    h->tvarsize != 8 * dl_program_var_count(t->prog, DL_VAR_THREAD) ||
	    (h->ngvars != ngvars && h->ngvars) || h->nspec != nspec ||
	    h->specsize != (nspec ? t->o.specsize : 0))
		return "sizes this session did not ask for";
	/* (bufresize=auto may lower the buffers' size, never raise it) */
	if (h->bufsize < 64 || h->bufsize % 8 || h->bufsize > t->o.bufsize)
		return "buffer size out of range";
	if (h->policy == UDT_POLICY_RING && (h->ring_chunk < 8 || h->ring_chunk > h->bufsize))
		return "ring chunk out of range";
	uint64_t ngstrs, strsize, dynvarsize;
	cs__vars_sizes(t, &ngstrs, &strsize, &dynvarsize);
	if (h->dyn_sz && (h->dyn_sz != dynvarsize || h->dyn_sz < sizeof(struct udt_dynhdr)))
		return "sizes this session did not ask for";
#define OUTSIDE " outside the memory"
	const struct {
		const char *what;
		uint64_t off, cnt, sz, al;
	} regions[] = {
		{ "thread buffers" OUTSIDE, h->tbuf_off, h->seg0_tbufs, sizeof(struct udt_tbuf),
		  _Alignof(struct udt_tbuf) },
		{ "buffer halves" OUTSIDE, h->data_off, 2ull * h->seg0_tbufs, h->bufsize, 8 },
		{ "aggregation tables" OUTSIDE, h->agg_off, 2ull * h->seg0_tbufs, h->aggsize, 8 },
		{ "thread variables" OUTSIDE, h->tvar_off, h->seg0_tbufs, h->tvarsize, 8 },
		{ "global variables" OUTSIDE, h->gvar_off, h->ngvars, 8, 8 },
		{ "speculations" OUTSIDE, h->spec_off, h->nspec, sizeof(struct udt_spec),
		  _Alignof(struct udt_spec) },
		{ "speculative buffers" OUTSIDE, h->spec_data_off, h->nspec, h->specsize, 8 },
		{ "thread strings" OUTSIDE, h->tlocal_off, h->seg0_tbufs, h->tlocal_sz, 8 },
		{ "global strings" OUTSIDE, h->gstr_off, ngstrs, udt_str_slot(strsize), 8 },
		{ "dynamic variables" OUTSIDE, h->dyn_off, 1, h->dyn_sz, 8 },
	};
	for (size_t i = 0; i < sizeof(regions) / sizeof(regions[0]); i++)
		if (!region_ok(size, regions[i].off, regions[i].cnt, regions[i].sz, regions[i].al))
			return regions[i].what;
#undef OUTSIDE
	return NULL;
}

/* The first field of f[n] that differs between live and copy (sz bytes), or NULL. */
static const char *changed(const struct field *f, size_t n, const void *live, const void *copy,
			   size_t sz)
{
	uint8_t now[sizeof(struct udt_shm_hdr)];

	assert(sz <= sizeof(now));
	memcpy(now, live, sz); /* (once: compared with what the copy holds) */
	for (size_t i = 0; i < n; i++)
		if (memcmp(now + f[i].off, (const uint8_t *)copy + f[i].off, f[i].sz))
			return f[i].name;
	return NULL;
}

bool cs__shm_check(struct cs_trace *t)
{
	const char *f;

	if (!cs__shm_usable(t))
		return false;
	if ((f = changed(layout, sizeof(layout) / sizeof(layout[0]), t->shm, &t->sh, sizeof(t->sh))))
		cs__shm_corrupt(t, "the header's %s changed", f);
	else if (t->sh.dyn_sz &&
		 (f = changed(dyn_layout, sizeof(dyn_layout) / sizeof(dyn_layout[0]),
			      t->shm + t->sh.dyn_off, &t->dyn_geo, sizeof(t->dyn_geo))))
		cs__shm_corrupt(t, "the dynamic variable space's %s changed", f);
	return !t->shm_bad;
}

/*
 * Open the target's descriptor fd as a sealed memfd: a regular file, reopened
 * read-write, that can neither shrink nor grow. The descriptor, and its size
 * in *ret_size; or -1 with *ret_why.
 */
static int open_sealed(pid_t pid, int fd, uint64_t *ret_size, const char **ret_why)
{
	char path[64];
	struct stat st;
	int rfd;

	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)pid, fd);
	rfd = udt__open_regular(path, O_RDWR, &st);
	if (rfd < 0) {
		/* (gone, or not there yet: tried again) */
		*ret_why = rfd == -ENOENT ? NULL : rfd == -EINVAL ? "not a regular file" : "cannot be opened";
		return -1;
	}
	int seals = fcntl(rfd, F_GET_SEALS);
	if (seals < 0 || (seals & (F_SEAL_SHRINK | F_SEAL_GROW)) != (F_SEAL_SHRINK | F_SEAL_GROW)) {
		*ret_why = "not sealed against resizing";
	} else if (st.st_size < (off_t)sizeof(struct udt_shm_hdr)) {
		*ret_why = "too small";
	} else {
		*ret_size = (uint64_t)st.st_size;
		return rfd;
	}
	close(rfd);
	return -1;
}

/* The waker (docs/runtime.md, "Pacing"): the memory's futex as a descriptor in the lead's
   wait, so that a target that wants a round has one however slowly the session is paced */
int cs__waker_fd(const struct cs_trace *t)
{
	return t->waker ? udt__futexfd_fd(t->waker) : -1;
}

int cs_trace_map(struct cs_trace *t)
{
	struct udt_control c;
	const char *why;
	uint64_t size;

	if (t->shm || t->shm_bad || !t->attached || t->target_gone)
		return 0;
	if (pr_proc_read(t->proc, t->ctl, &c, sizeof(c)))
		return 0;
	/* (a fork child's memory is its own once it has written its pid: before, what the slot
	   says is its parent's) */
	if (c.shm_session != t->session || c.pid != t->proc->pid)
		return 0;
	if (c.shm_state == UDT_SHM_FAILED) {
		if (!t->shm_failed)
			fprintf(stderr, "dtrace: could not allocate buffers in pid %d: %s\n",
				(int)t->proc->pid, strerror(c.shm_errno));
		t->shm_failed = true;
		return -1;
	}
	if (c.shm_state != UDT_SHM_READY || c.shm_fd < 0)
		return 0;
	int fd = open_sealed(t->proc->pid, c.shm_fd, &size, &why);
	if (fd < 0 && !why)
		return 0;
	if (fd < 0 || size > SIZE_MAX) {
		cs__shm_corrupt(t, "its memory is %s", why ? why : "too large");
		return -1;
	}
	void *m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (m == MAP_FAILED) {
		fprintf(stderr, "dtrace: could not map the buffers of pid %d: %s\n",
			(int)t->proc->pid, strerror(errno));
		return -1;
	}
	if (cs__shm_adopt(t, m, size))
		return -1;
	uint32_t acked = t->session;
	(void)pr_proc_write(t->proc, t->ctl + offsetof(struct udt_control, shm_acked), &acked,
			    sizeof(acked));
	/* a fork child's first fire may be waiting for it (UDT_CTL_FORKWAIT): a futex in
	   memory we share */
	struct udt_shm_hdr *live = (struct udt_shm_hdr *)(void *)t->shm;
	__atomic_store_n(&live->mapped, 1, __ATOMIC_RELEASE);
	(void)syscall(SYS_futex, &live->mapped, FUTEX_WAKE, INT32_MAX, NULL, NULL, 0);
	/* the lead's process may register tables that wait for their enabling */
	if (!t->lead)
		t->waker = udt__futexfd_open(&live->wake);
	if (t->sh.bufsize < t->o.bufsize && !t->resize_reported) {
		char sz[32];
		uint64_t b = t->sh.bufsize;
		if (!(b & ((1ull << 30) - 1)))
			snprintf(sz, sizeof(sz), "%llug", (unsigned long long)(b >> 30));
		else if (!(b & ((1ull << 20) - 1)))
			snprintf(sz, sizeof(sz), "%llum", (unsigned long long)(b >> 20));
		else if (!(b & 1023))
			snprintf(sz, sizeof(sz), "%lluk", (unsigned long long)(b >> 10));
		else
			snprintf(sz, sizeof(sz), "%llu", (unsigned long long)b);
		fprintf(stderr, "dtrace: buffer size lowered to %s\n", sz);
		t->resize_reported = true;
	}
	return 0;
}

int cs__shm_adopt(struct cs_trace *t, void *m, uint64_t size)
{
	const char *why;

	/* the copy every reader uses, checked once */
	memcpy(&t->sh, m, sizeof(t->sh));
	why = layout_check(t, &t->sh, size);
	if (!why && t->sh.dyn_sz) {
		memcpy(&t->dyn_geo, (uint8_t *)m + t->sh.dyn_off, sizeof(t->dyn_geo));
		if (!udt__dyn_geometry_ok(&t->dyn_geo, t->sh.dyn_sz))
			why = "the dynamic variable space is not as made";
	}
	if (why) {
		munmap(m, size);
		cs__shm_corrupt(t, "%s", why);
		return -1;
	}
	t->shm = m;
	t->shm_size = size;
	t->seg[0] = m;
	t->seg_l[0] = (struct udt_seg_layout){ t->sh.tbuf_off, t->sh.data_off, t->sh.agg_off,
					       t->sh.tvar_off, t->sh.tlocal_off, size };
	t->seg_cnt = 1;
	t->tbuf_cap = t->sh.seg0_tbufs;
	t->fill_pos = udt__xcalloc(t->tbuf_cap, sizeof(*t->fill_pos));
	t->pending = udt__xcalloc(t->tbuf_cap, sizeof(*t->pending));
	return 0;
}

void cs__shm_segments(struct cs_trace *t)
{
	struct udt_shm_hdr *live = (struct udt_shm_hdr *)(void *)t->shm;
	const char *why;
	uint64_t size;

	while (cs__shm_usable(t) && t->seg_cnt < UDT_SEG_MAX && !t->target_gone) {
		uint32_t k = t->seg_cnt, n = udt_seg_tbufs(t->sh.seg0_tbufs, k);
		struct udt_seg_layout l;

		/* made in order (runtime/session.c), each published before the next: pairs with
		   the runtime's release store of its state */
		/* (and only once a thread has a buffer there: what dtrace maps and allocates
		   follows the threads that fired, bounded by maxthreads) */
		if (t->tbuf_cap >= t->sh.tbuf_max ||
		    LOAD_ACQUIRE(&live->tbuf_cnt) <= t->tbuf_cap ||
		    LOAD_ACQUIRE(&live->seg_state[k]) != UDT_SHM_READY)
			return;
		int fd = open_sealed(t->proc->pid, __atomic_load_n(&live->seg_fd[k], __ATOMIC_RELAXED),
				     &size, &why);
		if (fd < 0 && !why)
			return; /* (tried again next round) */
		udt_seg_layout(n, t->sh.bufsize, t->sh.aggsize, t->sh.tvarsize, t->sh.tlocal_sz, &l);
		if (fd >= 0 && size != l.total)
			why = "not of the size its buffers take";
		if (fd < 0 || size != l.total || size > SIZE_MAX) {
			if (fd >= 0)
				close(fd);
			cs__shm_corrupt(t, "its buffers' segment %u is %s", k, why);
			return;
		}
		void *m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		close(fd);
		if (m == MAP_FAILED) {
			if (!t->seg_failed)
				fprintf(stderr, "dtrace: could not map the buffers of pid %d's threads "
					"past the first %u: %s\n", (int)t->proc->pid, t->tbuf_cap,
					strerror(errno));
			t->seg_failed = true;
			return;
		}
		t->seg[k] = m;
		t->seg_l[k] = l;
		t->seg_cnt = k + 1;
		uint32_t cap = t->tbuf_cap + n;
		t->fill_pos = udt__xreallocarray(t->fill_pos, cap, sizeof(*t->fill_pos));
		t->pending = udt__xreallocarray(t->pending, cap, sizeof(*t->pending));
		memset(t->fill_pos + t->tbuf_cap, 0, n * sizeof(*t->fill_pos));
		memset(t->pending + t->tbuf_cap, 0, n * sizeof(*t->pending));
		t->tbuf_cap = cap;
		/* the target may close its descriptor */
		__atomic_store_n(&live->seg_acked[k], 1, __ATOMIC_RELAXED);
	}
}

void cs__shm_unmap(struct cs_trace *t)
{
	udt__futexfd_close(t->waker);
	t->waker = NULL;
	for (uint32_t k = 1; k < t->seg_cnt; k++)
		munmap(t->seg[k], t->seg_l[k].total);
	if (t->shm)
		munmap(t->shm, t->shm_size);
	t->shm = NULL;
	t->seg_cnt = 0;
}

/* -- What the readers take, from the copy ------------------------------------------------ */

uint32_t cs__tbuf_count(struct cs_trace *t)
{
	if (!cs__shm_usable(t))
		return 0;
	/* (the buffers of the segments mapped: a thread takes one only once its segment, and
	   every one before it, is made) */
	uint32_t n = LOAD_ACQUIRE(&((struct udt_shm_hdr *)(void *)t->shm)->tbuf_cnt);
	return n < t->tbuf_cap ? n : t->tbuf_cap;
}

/* Buffer i's segment's base, its layout in *ret_l, and its index there in *ret_j. */
static uint8_t *seg_of(struct cs_trace *t, uint32_t i, const struct udt_seg_layout **ret_l,
		       uint32_t *ret_j)
{
	uint32_t k = udt_seg_of(t->sh.seg0_tbufs, i, ret_j);

	assert(i < t->tbuf_cap && k < t->seg_cnt);
	*ret_l = &t->seg_l[k];
	return t->seg[k];
}

struct udt_tbuf *cs__tbuf(struct cs_trace *t, uint32_t i)
{
	const struct udt_seg_layout *l;
	uint32_t j;
	uint8_t *b = seg_of(t, i, &l, &j);

	return (struct udt_tbuf *)(void *)(b + l->tbuf_off) + j;
}

uint8_t *cs__half(struct cs_trace *t, uint32_t i, uint32_t h)
{
	const struct udt_seg_layout *l;
	uint32_t j;
	uint8_t *b = seg_of(t, i, &l, &j);

	assert(h < 2);
	return b + l->data_off + ((uint64_t)j * 2 + h) * t->sh.bufsize;
}

uint8_t *cs__agg_table(struct cs_trace *t, uint32_t i, uint32_t h)
{
	const struct udt_seg_layout *l;
	uint32_t j;

	if (!cs__shm_usable(t) || !t->sh.aggsize || i >= t->tbuf_cap)
		return NULL;
	uint8_t *b = seg_of(t, i, &l, &j);
	return b + l->agg_off + ((uint64_t)j * 2 + (h & 1)) * t->sh.aggsize;
}

struct udt_dynhdr *cs__shm_dyn(struct cs_trace *t)
{
	if (!cs__shm_usable(t) || !t->sh.dyn_sz)
		return NULL;
	return (struct udt_dynhdr *)(void *)(t->shm + t->sh.dyn_off);
}
