/* SPDX-License-Identifier: MIT */
/*
 * The LTTng-UST tracepoint provider of the enabled-probe benchmark: the
 * event bench:ev with the same three integer fields as the udtrace probe
 * (LTTng records the timestamp itself), and bench:evs with an integer and
 * a string (ctf_string: copied up to its NUL). tp.c instantiates it.
 */
#undef TRACEPOINT_PROVIDER
#define TRACEPOINT_PROVIDER bench

#undef TRACEPOINT_INCLUDE
#define TRACEPOINT_INCLUDE "./tp.h"

#if !defined(BENCH_TP_H) || defined(TRACEPOINT_HEADER_MULTI_READ)
#define BENCH_TP_H

#include <lttng/tracepoint.h>

/* clang-format off */
TRACEPOINT_EVENT(bench, ev,
	TP_ARGS(long, a, long, b, long, c),
	TP_FIELDS(
		ctf_integer(long, a, a)
		ctf_integer(long, b, b)
		ctf_integer(long, c, c)
	)
)

TRACEPOINT_EVENT(bench, evs,
	TP_ARGS(long, a, const char *, s),
	TP_FIELDS(
		ctf_integer(long, a, a)
		ctf_string(s, s)
	)
)
/* clang-format on */

#endif /* BENCH_TP_H */

#include <lttng/tracepoint-event.h>
