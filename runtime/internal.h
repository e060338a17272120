/* SPDX-License-Identifier: MIT */
/* libudtrace's private interfaces, shared by its files and nothing else. */
#ifndef UDT_RUNTIME_INTERNAL_H
#define UDT_RUNTIME_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime/abi.h"
#include "runtime/bytecode.h"
#include "runtime/probe_table.h"
#include "runtime/safe.h"

#define UDT_EXPORT __attribute__((visibility("default")))

/* Relaxed and acquire/release access to fields the other side also touches. */
#define LOAD_RELAXED(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#define LOAD_ACQUIRE(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define STORE_RELAXED(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)
#define STORE_RELEASE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
/* Keeps the compiler from moving memory accesses across it (the CPU may). */
#define COMPILER_BARRIER() __asm__ __volatile__("" ::: "memory")

extern struct udt_control udt__control;

/* The registry (registry.c). */
#define UDT_REG_MAX 1024

struct udt_registry {
	uint32_t size;            /* sizeof(struct udt_registry) */
	uint32_t cnt;             /* slots used; grows only */
	uint32_t gen;             /* bumped at every register and unregister */
	uint32_t pad;
	struct udt_reg_slot {
		uint64_t table;   /* address of a struct udt_table_hdr; 0 once unregistered */
	} slots[UDT_REG_MAX];
};

extern struct udt_registry udt__registry;

/* Per-thread state, in static TLS (initial-exec: no allocation on first use). */
struct udt_tls {
	uint32_t depth;           /* > 0 while this thread runs the runtime: no recursion */
	uint32_t session;         /* the session tb belongs to */
	struct udt_tbuf *tb;      /* this thread's buffer pair, or NULL (none could be had) */
	uint8_t *data;            /* its two halves */
	int32_t tid;
};

extern __thread struct udt_tls udt__tls __attribute__((tls_model("initial-exec")));

/* fire.c: what udt__dispatch points to while a session has probes enabled (docs/format.md §1) */
void udt__fire(const volatile unsigned short *sem, unsigned nargs, uint64_t a0, uint64_t a1,
	       uint64_t a2, uint64_t a3);

/* session.c */
struct udt_shm_hdr *udt__shm_get(struct udt_control *c, uint32_t session);
/* Is this process a fork child of the one the session is for? (Then it is untraced.) */
bool udt__forked(struct udt_control *c, uint32_t session);
/* Count a fire that could not be recorded. */
void udt__lost(struct udt_control *c);
void udt__session_end(struct udt_control *c, uint32_t session, uint32_t why);
uint64_t udt__now_ns(void);
int32_t udt__gettid(void);
uint32_t udt__getcpu(void);

/* record.c: reserve size bytes in this thread's buffer; NULL if dropped. */
struct udt_rec_ctx {
	struct udt_shm_hdr *shm;
	struct udt_tbuf *tb;
	uint8_t *half;            /* the half being written */
	uint32_t which;           /* its index */
	uint64_t off;             /* where the record goes */
	uint32_t size;
};

void *udt__rec_reserve(struct udt_shm_hdr *shm, struct udt_rec_ctx *rc, uint32_t size,
		       uint32_t flags);
void udt__rec_commit(struct udt_rec_ctx *rc);
void udt__rec_abandon(struct udt_rec_ctx *rc);

#endif /* UDT_RUNTIME_INTERNAL_H */
