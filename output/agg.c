/* SPDX-License-Identifier: MIT */
/*
 * The values of aggregation entries as DTrace prints and orders them
 * (illumos's dt_aggregate.c and dt_consume.c): avg() and stddev() computed
 * in integers, the buckets a distribution shows and their bounds, and the
 * comparisons printa() sorts by.
 */
#include "output/output.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

static long double quantized_sum(const int64_t *b)
{
	long double total = 0;

	for (int i = 0; i < UDT_QUANTIZE_NBUCKETS; i++) {
		long double bv = i < UDT_QUANTIZE_ZEROBUCKET ? -(long double)(1ull << (62 - i))
				 : i == UDT_QUANTIZE_ZEROBUCKET ? 0
								: (long double)(1ull << (i - 64));
		total += bv * (long double)b[i];
	}
	return total;
}

static long double lquantized_sum(const struct out_aggvar *v, const int64_t *b)
{
	int64_t base = v->lq_base;
	long double total = (long double)b[0] * (long double)(base - 1);

	for (uint32_t i = 0; i < v->lq_levels; base += v->lq_step, i++)
		total += (long double)b[i + 1] * (long double)base;
	return total + (long double)b[v->lq_levels + 1] * (long double)(base + 1);
}

static int64_t lquantized_zero(const struct out_aggvar *v, const int64_t *b)
{
	int64_t base = v->lq_base;

	if (base - 1 == 0)
		return b[0];
	for (uint32_t i = 0; i < v->lq_levels; base += v->lq_step, i++)
		if (base == 0)
			return b[i + 1];
	return base + 1 == 0 ? b[v->lq_levels + 1] : 0;
}

/* floor(sqrt(x)) */
static uint64_t isqrt128(unsigned __int128 x)
{
	unsigned __int128 r = 0, bit = (unsigned __int128)1 << 126;

	while (bit > x)
		bit >>= 2;
	while (bit) {
		if (x >= r + bit) {
			x -= r + bit;
			r = (r >> 1) + bit;
		} else {
			r >>= 1;
		}
		bit >>= 2;
	}
	return (uint64_t)r;
}

/* stddev(): sqrt(average of the squares - square of the average), in integers, as DTrace. */
static uint64_t stddev_of(const int64_t *val, int64_t normal)
{
	if (!val[0])
		return 0;
	unsigned __int128 sq = ((unsigned __int128)(uint64_t)val[3] << 64) | (uint64_t)val[2];
	unsigned __int128 avg_sq = sq / (uint64_t)normal / (uint64_t)val[0];
	int64_t avg = val[1] / normal / val[0];
	uint64_t m = avg < 0 ? (uint64_t)0 - (uint64_t)avg : (uint64_t)avg;
	unsigned __int128 sq_avg = (unsigned __int128)m * m;
	return isqrt128(avg_sq > sq_avg ? avg_sq - sq_avg : 0);
}

/*
 * The lowest value of each of the n buckets of a distribution of var; for
 * lquantize() and llquantize() the first bucket is "< lo[0]" and the last
 * ">= lo[n - 1]".
 */
static int64_t *bucket_bounds(const struct out_aggvar *v, int n)
{
	int64_t *lo = udt__xcalloc((size_t)n + 1, sizeof(*lo));

	if (v->func == UDT_AGG_QUANTIZE) {
		for (int i = 0; i < n; i++)
			lo[i] = i < UDT_QUANTIZE_ZEROBUCKET ? -(int64_t)(1ull << (62 - i))
				: i == UDT_QUANTIZE_ZEROBUCKET ? 0 : (int64_t)(1ull << (i - 64));
	} else if (v->func == UDT_AGG_LQUANTIZE) {
		for (int i = 0; i < n; i++)
			lo[i] = v->lq_base + (int64_t)(i ? i - 1 : 0) * v->lq_step;
		lo[n - 1] = v->lq_base + (int64_t)v->lq_levels * v->lq_step;
	} else {
		/* as dt_print_llquantize() walks them */
		int64_t value = 1, next, step;
		int bin = 1;
		for (uint32_t o = 0; o < v->llq_low; o++)
			value *= v->llq_factor;
		lo[0] = value;
		next = value * v->llq_factor;
		step = next > v->llq_nsteps ? next / v->llq_nsteps : 1;
		for (uint32_t order = v->llq_low; order <= v->llq_high && bin < n;) {
			lo[bin++] = value;
			value += step;
			if (value != next)
				continue;
			if (__builtin_mul_overflow(value, (int64_t)v->llq_factor, &next))
				next = INT64_MAX;
			step = next > v->llq_nsteps ? next / v->llq_nsteps : 1;
			order++;
		}
		if (bin < n)
			lo[bin] = value;
	}
	return lo;
}

static int dist_buckets(const struct out_aggvar *v)
{
	switch (v->func) {
	case UDT_AGG_QUANTIZE:
		return UDT_QUANTIZE_NBUCKETS;
	case UDT_AGG_LQUANTIZE:
		return (int)v->lq_levels + 2;
	default:
		return (int)v->lq_levels;
	}
}

static long double llquantized_sum(const struct out_aggvar *v, const int64_t *b)
{
	int n = dist_buckets(v);
	int64_t *lo = bucket_bounds(v, n);
	long double total = (long double)b[0] * (long double)(lo[0] - 1);

	for (int i = 1; i < n; i++)
		total += (long double)b[i] * (long double)lo[i];
	free(lo);
	return total;
}

#define CMP(a, b) ((a) < (b) ? -1 : (a) > (b))

int out_agg_valcmp(const struct out_aggent *x, const struct out_aggent *y)
{
	const int64_t *a = x->val, *b = y->val;
	const struct out_aggvar *v = x->var;

	switch (v->func) {
	case UDT_AGG_AVG: {
		int64_t aa = a[0] ? a[1] / a[0] : 0, ba = b[0] ? b[1] / b[0] : 0;
		return CMP(aa, ba);
	}
	case UDT_AGG_QUANTIZE: {
		long double as = quantized_sum(a), bs = quantized_sum(b);
		if (as != bs)
			return CMP(as, bs);
		return CMP(a[UDT_QUANTIZE_ZEROBUCKET], b[UDT_QUANTIZE_ZEROBUCKET]);
	}
	case UDT_AGG_LQUANTIZE: {
		long double as = lquantized_sum(v, a), bs = lquantized_sum(v, b);
		if (as != bs)
			return CMP(as, bs);
		return CMP(lquantized_zero(v, a), lquantized_zero(v, b));
	}
	case UDT_AGG_LLQUANTIZE: {
		long double as = llquantized_sum(v, a), bs = llquantized_sum(v, b);
		if (as != bs)
			return CMP(as, bs);
		return CMP(a[0], b[0]);
	}
	case UDT_AGG_STDDEV:
		return CMP(stddev_of(a, 1), stddev_of(b, 1));
	default:
		return CMP(a[0], b[0]);
	}
}

/* Keys compared component by component, from keypos round to it. */
int out_agg_keycmp(const struct out_aggent *x, const struct out_aggent *y, unsigned keypos)
{
	size_t n = x->var->nkeys;

	for (size_t j = 0; j < n; j++) {
		size_t k = (j + keypos) % n;
		int r = x->keys[k].s ? strcmp(x->keys[k].s, y->keys[k].s)
				     : CMP(x->keys[k].v, y->keys[k].v);
		if (r)
			return r;
	}
	return 0;
}

bool out_agg_is_dist(const struct out_aggvar *var)
{
	return var->func == UDT_AGG_QUANTIZE || var->func == UDT_AGG_LQUANTIZE ||
	       var->func == UDT_AGG_LLQUANTIZE;
}

uint64_t out_agg_value(const struct out_aggent *e)
{
	int64_t normal = e->var->normal ? e->var->normal : 1;

	switch (e->var->func) {
	case UDT_AGG_AVG:
		return (uint64_t)(e->val[0] ? e->val[1] / normal / e->val[0] : 0);
	case UDT_AGG_STDDEV:
		return stddev_of(e->val, normal);
	default:
		return (uint64_t)(e->val[0] / normal);
	}
}

void out_agg_dist_range(const struct out_aggent *e, int *ret_n, int *ret_first, int *ret_last,
			int64_t **ret_lo)
{
	const struct out_aggvar *v = e->var;
	const int64_t *b = e->val;
	int n = dist_buckets(v);
	int first = 0, last = n - 1;

	while (first < n - 1 && !b[first])
		first++;
	if (first == n - 1 && !b[first]) {
		/* nothing: the buckets around zero (quantize) or the first ones */
		first = v->func == UDT_AGG_QUANTIZE ? UDT_QUANTIZE_ZEROBUCKET - 1 : 0;
		last = v->func == UDT_AGG_LLQUANTIZE ? 1 : first + 2;
	} else {
		if (first > 0)
			first--;
		while (last > 0 && !b[last])
			last--;
		if (last < n - 1)
			last++;
	}
	*ret_n = n;
	*ret_first = first;
	*ret_last = last;
	*ret_lo = bucket_bounds(v, n);
}
