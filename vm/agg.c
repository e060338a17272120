/* SPDX-License-Identifier: MIT */
/*
 * Aggregations: each thread keeps its own tables in the session's shared
 * memory (struct udt_agghdr, abi.h), so aggregating takes no lock and no
 * atomic read-modify-write; the consumer takes the tables' contents in turn
 * and merges them. A key is looked up in the table's hash; a new one is
 * appended (and dropped, counted in `drops`, when the table is full).
 */
#include "vm/agg.h"
#include <stdbool.h>

#include <string.h>

/*
 * The hash of n bytes (8-aligned) from h: a multiply by an odd constant a
 * word, a bijection, so keys that differ in one word differ; the table's
 * slot is the top bits, which the multiply mixes every bit below into. (A
 * fold after each word, which the FNV prime needed, lengthened the chain of
 * dependent instructions by a third: benchmark 8's string key.)
 */
static uint64_t hash_words(uint64_t h, const uint8_t *p, uint32_t n)
{
	for (uint32_t i = 0; i < n; i += 8) {
		uint64_t w;
		memcpy(&w, p + i, 8);
		h = (h ^ w) * 0x9e3779b97f4a7c15ull;
	}
	return h;
}

/* The hash of a key: its parts' bytes, or all ks of them. */
static uint64_t key_hash(uint32_t aggid, const uint8_t *key, uint32_t ks,
			 const struct udt_aggpart *parts, uint32_t nparts)
{
	uint64_t h = 0xcbf29ce484222325ull ^ aggid;

	if (!parts)
		return hash_words(h, key, ks);
	for (uint32_t k = 0; k < nparts; k++)
		h = hash_words(h, key + parts[k].off, parts[k].len);
	return h;
}

/* Keys of ks bytes (8-aligned) equal? A word at a time: see udt__agg_key_zero(). */
static inline bool words_eq(const uint8_t *a, const uint8_t *b, uint32_t ks)
{
	for (uint32_t i = 0; i < ks; i += 8) {
		uint64_t x, y;
		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		if (x != y)
			return false;
	}
	return true;
}

/*
 * Is an entry's key (whole, zero-padded) the key being built? Compared part
 * by part: a string's part ends with its NUL, so an entry whose string is
 * longer differs there, and one that is equal is zero after it, as the
 * built key would be.
 */
static inline bool key_eq(const uint8_t *ent, const uint8_t *key, uint32_t ks,
			  const struct udt_aggpart *parts, uint32_t nparts)
{
	if (!parts)
		return words_eq(ent, key, ks);
	for (uint32_t k = 0; k < nparts; k++)
		if (!words_eq(ent + parts[k].off, key + parts[k].off, parts[k].len))
			return false;
	return true;
}

uint8_t *udt__agg_ready(uint8_t *table, uint64_t aggsize)
{
	struct udt_agghdr *h = (struct udt_agghdr *)(void *)table;

	if (!table)
		return NULL;
	if (!h->hash_bits) {
		uint64_t start;
		uint32_t bits = udt__agg_layout(aggsize, &start);
		if (!bits)
			return NULL;
		h->entries_off = (uint32_t)start;
		__atomic_store_n(&h->hash_bits, bits, __ATOMIC_RELEASE);
	}
	return table + sizeof(*h) + ((uint64_t)4 << h->hash_bits);
}

uint32_t udt__agg_layout(uint64_t aggsize, uint64_t *ret_entries_off)
{
	/* a hash slot per 512 bytes of table, 64 to a million */
	uint32_t bits = 6;

	while (bits < 20 && ((uint64_t)512 << (bits + 1)) <= aggsize)
		bits++;
	uint64_t start = (sizeof(struct udt_agghdr) + ((uint64_t)4 << bits) + UDT_AGG_KEY_MAX + 7) &
			 ~7ull;
	if (start >= aggsize)
		return 0;
	*ret_entries_off = start;
	return bits;
}

/*
 * The quantize() bucket of v, as DTrace's: for v > 0 the power of two at or
 * below it, for v < 0 its mirror (-3 goes to -2), one bucket for 0.
 */
static int quantize_bucket(int64_t v)
{
	if (v == 0)
		return UDT_QUANTIZE_ZEROBUCKET;
	uint64_t m = v > 0 ? (uint64_t)v : (uint64_t)0 - (uint64_t)v;
	int k = 63 - __builtin_clzll(m); /* 2^k <= |v| < 2^(k+1) */
	if (k > 62)
		k = 62;
	return v > 0 ? UDT_QUANTIZE_ZEROBUCKET + 1 + k : UDT_QUANTIZE_ZEROBUCKET - 1 - k;
}

/* A new entry's value (the table's memory is reused once the consumer has emptied it). */
static void init_value(int64_t *val, const struct udt_aggdesc *ad, uint32_t vs)
{
	memset(val, 0, vs);
	if (ad->func == UDT_AGG_MIN)
		val[0] = INT64_MAX;
	else if (ad->func == UDT_AGG_MAX)
		val[0] = INT64_MIN;
}

static void apply(int64_t *val, const struct udt_aggdesc *ad, int64_t v, int64_t incr)
{
	switch (ad->func) {
	case UDT_AGG_COUNT:
		val[0]++;
		break;
	case UDT_AGG_SUM:
		val[0] = (int64_t)((uint64_t)val[0] + (uint64_t)v);
		break;
	case UDT_AGG_AVG:
		val[0]++;
		val[1] = (int64_t)((uint64_t)val[1] + (uint64_t)v);
		break;
	case UDT_AGG_MIN:
		if (v < val[0])
			val[0] = v;
		break;
	case UDT_AGG_MAX:
		if (v > val[0])
			val[0] = v;
		break;
	case UDT_AGG_QUANTIZE:
		val[quantize_bucket(v)] += incr;
		break;
	case UDT_AGG_LQUANTIZE: {
		uint64_t level;
		if (v < ad->lq_base) {
			val[0] += incr;
			break;
		}
		level = ((uint64_t)v - (uint64_t)ad->lq_base) / ad->lq_step;
		val[level < ad->lq_levels ? level + 1 : ad->lq_levels + 1] += incr;
		break;
	}
	case UDT_AGG_LLQUANTIZE: {
		uint32_t b = udt_llquantize_bucket(ad->llq_factor, ad->llq_low, ad->llq_high,
						   ad->llq_nsteps, v);
		val[b < ad->lq_levels ? b : ad->lq_levels - 1] += incr; /* (the verifier made it fit) */
		break;
	}
	case UDT_AGG_STDDEV: {
		uint64_t m = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
		unsigned __int128 sq = (unsigned __int128)m * m;
		unsigned __int128 acc = ((unsigned __int128)(uint64_t)val[3] << 64) | (uint64_t)val[2];
		acc += sq;
		val[0]++;
		val[1] = (int64_t)((uint64_t)val[1] + (uint64_t)v);
		val[2] = (int64_t)(uint64_t)acc;
		val[3] = (int64_t)(uint64_t)(acc >> 64);
		break;
	}
	default:
		break;
	}
}

void udt__agg_update(uint8_t *table, uint64_t aggsize, const struct udt_aggdesc *ad,
		     const uint8_t *key, const struct udt_aggpart *parts, uint32_t nparts,
		     int64_t v, int64_t incr)
{
	struct udt_agghdr *h = (struct udt_agghdr *)(void *)table;
	uint32_t *hash = (uint32_t *)(void *)(h + 1);
	uint32_t ks = ad->key_size, vs = udt_agg_valsize(ad->func, ad->lq_levels);
	uint32_t slot = (uint32_t)(key_hash(ad->aggid, key, ks, parts, nparts) >>
				   (64 - h->hash_bits));
	struct udt_aggent *e = NULL;

	for (uint32_t off = hash[slot]; off;) {
		struct udt_aggent *x = (struct udt_aggent *)(void *)(table + off - 1);
		if (x->aggid == ad->aggid &&
		    key_eq((const uint8_t *)(x + 1), key, ks, parts, nparts)) {
			e = x;
			break;
		}
		off = x->next;
	}
	if (!e) {
		uint32_t size = (uint32_t)sizeof(*e) + ks + vs;
		uint64_t at = (uint64_t)h->entries_off + h->used;
		if (at + size > aggsize) {
			h->drops++;
			return;
		}
		e = (struct udt_aggent *)(void *)(table + at);
		e->size = size;
		e->aggid = ad->aggid;
		e->next = hash[slot];
		uint8_t *ek = (uint8_t *)(e + 1);
		if (parts) {
			/* the entry's key whole: its parts, zeros elsewhere */
			udt__agg_key_zero(ek, ks);
			for (uint32_t k = 0; k < nparts; k++)
				memcpy(ek + parts[k].off, key + parts[k].off, parts[k].len);
		} else {
			memcpy(ek, key, ks);
		}
		init_value((int64_t *)(void *)(ek + ks), ad, vs);
		h->used += size;
		hash[slot] = (uint32_t)at + 1;
	}
	apply((int64_t *)(void *)((uint8_t *)(e + 1) + ks), ad, v, incr);
}
