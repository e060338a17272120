/* SPDX-License-Identifier: MIT */
/*
 * An aggregation table (abi.h, struct udt_agghdr): the runtime keeps one per
 * thread, the consumer one for BEGIN and END. One writer per table, no lock.
 */
#ifndef UDT_VM_AGG_H
#define UDT_VM_AGG_H

#include "abi/abi.h"

#include <string.h>

/*
 * Keys are 8-aligned and short: they are zeroed and compared a word at a
 * time, inline. (glibc's memcmp() of 0 bytes, the key of an aggregation
 * without one or with constant keys only, took 200 ns on the AMD EPYC
 * machine of docs/benchmarks.md: its AVX-512 masked load with an empty
 * mask; a word loop is also cheaper than the call for the usual 8 to 64
 * bytes.)
 */
static inline void udt__agg_key_zero(uint8_t *key, uint32_t n)
{
	static const uint64_t zero;

	for (uint32_t i = 0; i < n; i += 8)
		memcpy(key + i, &zero, 8);
}

/* udt__agg_scratch() of a table not ready yet (agg.c): made ready, or NULL. */
uint8_t *udt__agg_ready(uint8_t *table, uint64_t aggsize);

/*
 * The key scratch of a zeroed table of aggsize bytes (made ready at its
 * first use), or NULL. Inline: every aggregating fire asks.
 */
static inline uint8_t *udt__agg_scratch(uint8_t *table, uint64_t aggsize)
{
	const struct udt_agghdr *h = (const void *)table;

	if (table && h->hash_bits)
		return table + sizeof(*h) + ((uint64_t)4 << h->hash_bits);
	return udt__agg_ready(table, aggsize);
}
/*
 * The hash bits a table of aggsize bytes has once ready, and where its entries
 * start (*ret_entries_off); 0 if it is too small to hold any.
 */
uint32_t udt__agg_layout(uint64_t aggsize, uint64_t *ret_entries_off);
/*
 * The part of a key component that holds its value (struct udt_aggdesc's
 * key actions): off and len bytes from it, both multiples of 8. A string's
 * is its bytes, its NUL and zeros to the next word, not its whole slot: the
 * rest of the slot is not even written (fire.c), and is zero in the table's
 * entries, which lookups compare the parts with.
 */
struct udt_aggpart {
	uint32_t off, len;
};

/* A key of more components is built whole, zeroed first (parts NULL). */
#define UDT_AGG_PARTS 16

/*
 * Aggregate v under the key in the scratch (ad->key_size bytes), adding
 * incr to its bucket (quantizations); a new key that does not fit is a drop.
 * parts: the key's nparts components as written (then only they are hashed
 * and compared), or NULL: the whole key, zero where nothing was written.
 */
void udt__agg_update(uint8_t *table, uint64_t aggsize, const struct udt_aggdesc *ad,
		     const uint8_t *key, const struct udt_aggpart *parts, uint32_t nparts,
		     int64_t v, int64_t incr);

#endif /* UDT_VM_AGG_H */
