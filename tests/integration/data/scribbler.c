/* SPDX-License-Identifier: MIT */
/*
 * A traced program that turns on its tracer, for tests/integration/trust.sh:
 * it writes over its side of the memory it shares with dtrace. Run under
 * dtrace -c with SCRIBBLE=WHAT:
 *   FIELD       a field of the shared memory's header (struct udt_shm_hdr),
 *               changed once dtrace has read the first record
 *   hash        the hash bits of the thread's aggregation tables
 *   dynhdr_FIELD a field of the dynamic variable space's header
 *   truncate    try to shrink and to grow the memory (it is sealed: both fail)
 *   unsealed    the runtime's memfd made without sealing allowed (this program's
 *               memfd_create() comes first): dtrace must refuse to map it
 * It fires rt:::once(1, "before"), waits until dtrace has read it (its buffer's
 * halves switched twice), scribbles, fires rt:::once(2, "after") where its own
 * runtime can still work (truncate, tbuf_cnt), and exits.
 * What it says goes to stderr.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rt.h"
#include "abi/abi.h"

static const char *what(void)
{
	const char *w = getenv("SCRIBBLE");

	return w ? w : "";
}

/* A descriptor of the runtime's memfd of our own (the runtime closes its own). */
static int shm_fd = -1;

/*
 * The runtime's memfd_create() is this one: it keeps a descriptor, and makes
 * the memfd without MFD_ALLOW_SEALING for "unsealed".
 */
int memfd_create(const char *name, unsigned int flags)
{
	if (!strcmp(what(), "unsealed"))
		flags &= ~MFD_ALLOW_SEALING;
	int fd = (int)syscall(SYS_memfd_create, name, flags);
	if (fd >= 0 && shm_fd < 0)
		shm_fd = fcntl(fd, F_DUPFD_CLOEXEC, 100);
	return fd;
}

#define F(s, f) { #f, offsetof(struct s, f), sizeof(((struct s *)0)->f) }
static const struct field {
	const char *name;
	size_t off, sz;
} hdr_fields[] = {
	F(udt_shm_hdr, size), F(udt_shm_hdr, magic), F(udt_shm_hdr, version),
	F(udt_shm_hdr, session), F(udt_shm_hdr, total_sz), F(udt_shm_hdr, bufsize),
	F(udt_shm_hdr, policy), F(udt_shm_hdr, tbuf_max), F(udt_shm_hdr, tbuf_cnt),
	F(udt_shm_hdr, tbuf_off), F(udt_shm_hdr, data_off), F(udt_shm_hdr, agg_off),
	F(udt_shm_hdr, aggsize), F(udt_shm_hdr, tvar_off), F(udt_shm_hdr, tvarsize),
	F(udt_shm_hdr, gvar_off), F(udt_shm_hdr, ngvars), F(udt_shm_hdr, spec_off),
	F(udt_shm_hdr, spec_data_off), F(udt_shm_hdr, nspec), F(udt_shm_hdr, specsize),
	F(udt_shm_hdr, ring_chunk), F(udt_shm_hdr, tlocal_off), F(udt_shm_hdr, tlocal_sz),
	F(udt_shm_hdr, gstr_off), F(udt_shm_hdr, dyn_off), F(udt_shm_hdr, dyn_sz),
}, dyn_fields[] = {
	F(udt_dynhdr, size), F(udt_dynhdr, chunk_sz), F(udt_dynhdr, hash_bits),
	F(udt_dynhdr, chunk_cnt), F(udt_dynhdr, chunks_off),
};

/* Wait (10 s at most) until *p differs from v. */
static int wait_change(const volatile uint32_t *p, uint32_t v)
{
	for (int i = 0; i < 10000; i++) {
		if (*p != v)
			return 0;
		usleep(1000);
	}
	fprintf(stderr, "scribbler: dtrace did not read\n");
	return -1;
}

/* Wait (10 s at most) until *p is 0: dtrace has read the half and given it back. */
static int wait_read(const volatile uint64_t *p)
{
	for (int i = 0; i < 10000; i++) {
		if (!*p)
			return 0;
		usleep(1000);
	}
	fprintf(stderr, "scribbler: dtrace did not read\n");
	return -1;
}

/* Make field f at base far out of range: a huge value, or (what is 0) far from 0. */
static void scribble(uint8_t *base, const struct field *f)
{
	if (f->sz == 8) {
		uint64_t v;
		memcpy(&v, base + f->off, 8);
		v += 1ull << 40;
		memcpy(base + f->off, &v, 8);
	} else {
		uint32_t v;
		memcpy(&v, base + f->off, 4);
		v += 0x40000000u;
		memcpy(base + f->off, &v, 4);
	}
	fprintf(stderr, "scribbler: %s changed\n", f->name);
}

static int scribble_named(uint8_t *base, const struct field *fs, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(fs[i].name, name)) {
			scribble(base, &fs[i]);
			return 0;
		}
	}
	fprintf(stderr, "scribbler: no field %s\n", name);
	return -1;
}

int main(void)
{
	struct udt_ctlblock *cb = dlsym(RTLD_DEFAULT, "udt__control");
	const char *w = what();

	if (!cb) {
		fprintf(stderr, "scribbler: no runtime\n");
		return 2;
	}
	/* (the one session's slot: dtrace -c takes the first) */
	struct udt_control *c = &cb->slots[0];
	RT_ONCE(1, "before");
	if (c->shm_state != UDT_SHM_READY) {
		fprintf(stderr, "scribbler: no shared memory\n");
		return 0; /* (unsealed: dtrace refused it) */
	}
	uint8_t *m = (uint8_t *)(uintptr_t)c->shm_addr;
	struct udt_shm_hdr *h = (struct udt_shm_hdr *)m;
	struct udt_tbuf *tb = (struct udt_tbuf *)(m + h->tbuf_off);
	uint32_t a = tb->active;
	/* (a ring is read at the end only; an empty half is not switched: dtrace has read
	   once it switched the half with the record and gave it back) */
	if (h->policy == UDT_POLICY_SWITCH && (wait_change(&tb->active, a) || wait_read(&tb->off[a])))
		return 1;
	if (!strcmp(w, "truncate")) {
		if (ftruncate(shm_fd, 4096))
			fprintf(stderr, "scribbler: shrink: %s\n", strerror(errno));
		if (ftruncate(shm_fd, (off_t)h->total_sz * 2))
			fprintf(stderr, "scribbler: grow: %s\n", strerror(errno));
	} else if (!strcmp(w, "hash")) {
		for (int t = 0; t < 2; t++) {
			struct udt_agghdr *ah = (void *)(m + h->agg_off + (uint64_t)t * h->aggsize);
			ah->hash_bits = 20;
			ah->used = 0;
		}
		fprintf(stderr, "scribbler: hash_bits changed\n");
		return 0;
	} else if (!strncmp(w, "dynhdr_", 7)) {
		if (scribble_named(m + h->dyn_off, dyn_fields, sizeof(dyn_fields) / sizeof(dyn_fields[0]),
				   w + 7))
			return 1;
	} else if (scribble_named(m, hdr_fields, sizeof(hdr_fields) / sizeof(hdr_fields[0]), w)) {
		return 1;
	}
	/* (the runtime here reads what was scribbled over too: only where that is harmless) */
	if (!strcmp(w, "truncate") || !strcmp(w, "tbuf_cnt"))
		RT_ONCE(2, "after");
	return 0;
}
