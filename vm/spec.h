/* SPDX-License-Identifier: MIT */
/*
 * Speculative buffers (vm/spec.c): the table of a session's
 * speculations, and the operations on it that the probe path (fire.c), the
 * VM (speculation()) and the consumer (BEGIN and END, and the commits it
 * finishes) share. Async-signal-safe, lock-free; docs/runtime.md,
 * "Speculations", specifies the protocol.
 */
#ifndef UDT_VM_SPEC_H
#define UDT_VM_SPEC_H

#include <stdbool.h>
#include <stdint.h>

#include "abi/abi.h"

/* Where a session's speculations are: in the shared memory, or the consumer's own. */
struct udt_spectab {
	struct udt_spec *spec;    /* [n] */
	uint32_t n;
	uint8_t *data;            /* n buffers of size bytes */
	uint64_t size;
	uint64_t *drops;          /* the counters dtrace reports (struct udt_shm_hdr's) */
	uint64_t *busy;
	uint64_t *unavail;
};

/* A record being written into a speculative buffer by udt__spec_reserve(). */
struct udt_spec_rec {
	struct udt_spec *spec;
	struct udt_rec *rec;      /* size bytes, in the speculation's buffer */
	uint32_t size;
};

/* What udt__spec_reserve() and udt__spec_end() report besides success. */
enum udt_spec_ret {
	UDT_SPEC_OK = 0,
	UDT_SPEC_NONE = 1,        /* ID 0, or a speculation not active: silently nothing */
	UDT_SPEC_BADID = 2,       /* an ID past the table: DTrace's "illegal operation" */
	UDT_SPEC_DEFERRED = 3,    /* a commit or discard another thread is still writing into */
};

/* speculation(): a free speculation's ID (1...), or 0 with busy or unavail counted. */
uint64_t udt__spec_alloc(const struct udt_spectab *t);

/*
 * speculate(id) with a record of size bytes: room in the speculation's
 * buffer (*ret filled, the caller writes the record and ends it with
 * udt__spec_publish()), or UDT_SPEC_NONE (a full buffer counts a drop),
 * or UDT_SPEC_BADID.
 */
int udt__spec_reserve(const struct udt_spectab *t, uint64_t id, uint32_t size,
		      struct udt_spec_rec *ret);

/* The record is written (ok), or abandoned (a pad takes its room): either way, done. */
void udt__spec_publish(struct udt_spec_rec *r, bool ok);

/*
 * Receives the records of a committed speculation (len bytes of whole
 * records); false if they could not be taken (then they are dropped).
 */
typedef bool (*udt_spec_sink)(void *arg, const uint8_t *recs, uint64_t len);

/*
 * commit(id) (commit true) or discard(id): the records go to sink and the
 * speculation is free again, when no thread is writing into it. Otherwise
 * UDT_SPEC_DEFERRED: it stays COMMITTING or DISCARDING (busy) until
 * udt__spec_finish() succeeds. UDT_SPEC_NONE for ID 0 or a speculation not
 * active (DTrace: silently nothing), UDT_SPEC_BADID past the table.
 */
int udt__spec_end(const struct udt_spectab *t, uint64_t id, bool commit, udt_spec_sink sink,
		  void *arg);

/*
 * Finish speculation index i if it is COMMITTING (commit true: its records
 * to sink) or DISCARDING (commit false) and no thread writes into it: then
 * it is free. False if it is not in that state, or writers remain.
 */
bool udt__spec_finish(const struct udt_spectab *t, uint32_t i, bool commit, udt_spec_sink sink,
		      void *arg);

/*
 * A commit that no one will finish (its commit record could not be written):
 * make it a discard, which the consumer's cleaner finishes.
 */
void udt__spec_abort_commit(const struct udt_spectab *t, uint32_t i);

/*
 * The records of speculation index i already complete (while writers may
 * still be at work): the length of the prefix whose records are all
 * published.
 */
uint64_t udt__spec_complete(const struct udt_spectab *t, uint32_t i);

#endif /* UDT_VM_SPEC_H */
