/* SPDX-License-Identifier: MIT */
/*
 * An aggregation table (abi.h, struct udt_agghdr): the runtime keeps one per
 * thread, the consumer one for BEGIN and END. One writer per table, no lock.
 */
#ifndef UDT_RUNTIME_AGG_H
#define UDT_RUNTIME_AGG_H

#include "runtime/abi.h"

/* The key scratch of a zeroed table of aggsize bytes (made ready at its first use), or NULL. */
uint8_t *udt__agg_scratch(uint8_t *table, uint64_t aggsize);
/*
 * Aggregate v under the key in the scratch (ad->key_size bytes), adding
 * incr to its bucket (quantizations); a new key that does not fit is a drop.
 */
void udt__agg_update(uint8_t *table, uint64_t aggsize, const struct udt_aggdesc *ad,
		     const uint8_t *key, int64_t v, int64_t incr);

#endif /* UDT_RUNTIME_AGG_H */
