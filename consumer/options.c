/* SPDX-License-Identifier: MIT */
/*
 * Consumer options: -x name=value, -b, -q and "#pragma D option", with
 * DTrace's names, defaults and suffixes (the buffer chapter: bufsize 4m,
 * switchrate 1hz, bufpolicy switch, bufresize auto).
 */
#include "consumer/consumer.h"
#include "runtime/abi.h"
#include "util/util.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void cs_opts_init(struct cs_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->bufsize = 4ull << 20;
	o->switchrate_ns = 1000000000ull;
	o->deadman_ns = 5000000000ull;
	o->policy = UDT_POLICY_SWITCH;
	o->tbuf_max = 512;
	o->strsize = 256;
	o->aggsize = 4ull << 20;
	o->aggrate_ns = 1000000000ull;
	o->ustackframes = 100;
	/* DTrace's: one speculation of 32k, cleaned at 101hz */
	o->nspec = 1;
	o->specsize = 32u << 10;
	o->cleanrate_ns = 9900990;
	o->dynvarsize = 1ull << 20;
	o->scratchsize = 256ull << 10;
}

int cs_parse_size(const char *s, uint64_t *ret)
{
	char *end;
	uint64_t v, mul = 1;

	if (!s || !isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno)
		return -1;
	switch (tolower((unsigned char)*end)) {
	case 't': mul <<= 10; /* fall through */
	case 'g': mul <<= 10; /* fall through */
	case 'm': mul <<= 10; /* fall through */
	case 'k': mul <<= 10; end++; break;
	case '\0': break;
	default: return -1;
	}
	if (*end || (v && mul > UINT64_MAX / v))
		return -1;
	*ret = v * mul;
	return 0;
}

int cs_parse_time(const char *s, bool bare_is_hz, uint64_t *ret_ns)
{
	static const struct {
		const char *sfx;
		uint64_t ns;          /* 0: a frequency */
	} units[] = {
		{ "nsec", 1 }, { "ns", 1 }, { "usec", 1000 }, { "us", 1000 },
		{ "msec", 1000000 }, { "ms", 1000000 }, { "sec", 1000000000ull },
		{ "s", 1000000000ull }, { "min", 60000000000ull }, { "m", 60000000000ull },
		{ "hour", 3600000000000ull }, { "h", 3600000000000ull },
		{ "day", 86400000000000ull }, { "d", 86400000000000ull }, { "hz", 0 },
	};
	char *end;
	uint64_t v;

	if (!s || !isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	if (!*end) {
		if (bare_is_hz) {
			if (!v)
				return -1;
			*ret_ns = 1000000000ull / v;
		} else {
			*ret_ns = v;
		}
		return 0;
	}
	for (size_t i = 0; i < UDT__ARRAY_SIZE(units); i++) {
		if (strcasecmp(end, units[i].sfx))
			continue;
		if (!units[i].ns) {
			if (!v)
				return -1;
			*ret_ns = 1000000000ull / v;
		} else {
			if (v > UINT64_MAX / units[i].ns)
				return -1;
			*ret_ns = v * units[i].ns;
		}
		return *ret_ns ? 0 : -1;
	}
	return -1;
}

static int bad_value(const char *name, const char *value, char **ret_err)
{
	*ret_err = udt__xasprintf("failed to set option -x %s%s%s: Invalid value for specified "
				  "option", name, value ? "=" : "", value ? value : "");
	return -1;
}

int cs_opt_set(struct cs_opts *o, const char *name, const char *value, char **ret_err)
{
	uint64_t v;

	if (!strcmp(name, "bufsize") || !strcmp(name, "b")) {
		if (cs_parse_size(value, &v) || v < 64)
			return bad_value(name, value, ret_err);
		o->bufsize = (v + 7) & ~7ull;
	} else if (!strcmp(name, "switchrate")) {
		if (cs_parse_time(value, true, &v))
			return bad_value(name, value, ret_err);
		o->switchrate_ns = v;
	} else if (!strcmp(name, "bufpolicy")) {
		if (!value)
			return bad_value(name, value, ret_err);
		if (!strcmp(value, "switch"))
			o->policy = UDT_POLICY_SWITCH;
		else if (!strcmp(value, "fill"))
			o->policy = UDT_POLICY_FILL;
		else if (!strcmp(value, "ring"))
			o->policy = UDT_POLICY_RING;
		else
			return bad_value(name, value, ret_err);
	} else if (!strcmp(name, "bufresize")) {
		if (value && !strcmp(value, "auto"))
			o->bufresize_manual = false;
		else if (value && !strcmp(value, "manual"))
			o->bufresize_manual = true;
		else
			return bad_value(name, value, ret_err);
	} else if (!strcmp(name, "temporal")) {
		o->temporal = true;
	} else if (!strcmp(name, "quiet")) {
		o->quiet = true;
	} else if (!strcmp(name, "zdefs")) {
		o->zdefs = true;
	} else if (!strcmp(name, "destructive")) {
		o->destructive = true;
	} else if (!strcmp(name, "flowindent")) {
		o->flowindent = true;
	} else if (!strcmp(name, "deadman")) {
		if (cs_parse_time(value, false, &v) || v < 100000000ull)
			return bad_value(name, value, ret_err);
		o->deadman_ns = v;
	} else if (!strcmp(name, "maxthreads")) {
		if (cs_parse_size(value, &v) || !v || v > 65536)
			return bad_value(name, value, ret_err);
		o->tbuf_max = (uint32_t)v;
	} else if (!strcmp(name, "strsize")) {
		/* (a string of one byte would hold its NUL only) */
		if (cs_parse_size(value, &v) || v < 2 || v > UDT_STRSIZE_MAX)
			return bad_value(name, value, ret_err);
		o->strsize = v;
	} else if (!strcmp(name, "aggsize")) {
		/* the runtime maps whole pages, and needs room for its hash and a key */
		if (cs_parse_size(value, &v) || v < 16384 || v > (1ull << 31))
			return bad_value(name, value, ret_err);
		o->aggsize = (v + 4095) & ~4095ull;
	} else if (!strcmp(name, "aggrate")) {
		if (cs_parse_time(value, true, &v))
			return bad_value(name, value, ret_err);
		o->aggrate_ns = v;
	} else if (!strcmp(name, "aggsortkey")) {
		o->aggsortkey = true;
	} else if (!strcmp(name, "aggsortrev")) {
		o->aggsortrev = true;
	} else if (!strcmp(name, "aggsortkeypos") || !strcmp(name, "aggsortpos")) {
		/* (aggsortpos: which aggregation of a printa() of several sorts first) */
		if (!value || cs_parse_size(value, &v) || v > 255)
			return bad_value(name, value, ret_err);
		if (!strcmp(name, "aggsortkeypos"))
			o->aggsortkeypos = (uint32_t)v;
		else
			o->aggsortpos = (uint32_t)v;
	} else if (!strcmp(name, "defaultargs")) {
		o->defaultargs = true;
	} else if (!strcmp(name, "empty")) {
		o->empty = true;
	} else if (!strcmp(name, "nspec")) {
		if (cs_parse_size(value, &v) || !v || v > UDT_MAX_NSPEC)
			return bad_value(name, value, ret_err);
		o->nspec = (uint32_t)v;
	} else if (!strcmp(name, "specsize")) {
		/* a record must fit (the header and a value), and the runtime maps it whole */
		if (cs_parse_size(value, &v) || v < 64 || v > (1ull << 30))
			return bad_value(name, value, ret_err);
		o->specsize = (v + 7) & ~7ull;
	} else if (!strcmp(name, "dynvarsize")) {
		/* at least a few elements; at most what the runtime maps (vars.c) */
		if (cs_parse_size(value, &v) || v < 4096 || v > (16ull << 30))
			return bad_value(name, value, ret_err);
		o->dynvarsize = (v + 7) & ~7ull;
	} else if (!strcmp(name, "scratchsize")) {
		if (cs_parse_size(value, &v) || v < 64 || v > UDT_SCRATCH_MAX)
			return bad_value(name, value, ret_err);
		o->scratchsize = (v + 7) & ~7ull;
	} else if (!strcmp(name, "cleanrate")) {
		if (cs_parse_time(value, true, &v))
			return bad_value(name, value, ret_err);
		o->cleanrate_ns = v;
	} else if (!strcmp(name, "ustackframes")) {
		if (cs_parse_size(value, &v) || !v || v > UDT_USTACK_MAX)
			return bad_value(name, value, ret_err);
		o->ustackframes = (uint32_t)v;
	} else if (!strcmp(name, "aggfmt")) {
		/* folded: FlameGraph's folded stacks (docs/profile.md) */
		if (value && !strcmp(value, "folded"))
			o->agg_folded = true;
		else if (value && !strcmp(value, "dtrace"))
			o->agg_folded = false;
		else
			return bad_value(name, value, ret_err);
	} else if (!strcmp(name, "profclock")) {
		/* how profile-n samples are timed (docs/profile.md) */
		if (value && !strcmp(value, "auto"))
			o->prof_clock = CS_PROFCLOCK_AUTO;
		else if (value && !strcmp(value, "timer"))
			o->prof_clock = CS_PROFCLOCK_TIMER;
		else if (value && !strcmp(value, "perf"))
			o->prof_clock = CS_PROFCLOCK_PERF;
		else
			return bad_value(name, value, ret_err);
	} else if (!strcmp(name, "nolibs") || !strcmp(name, "cpp") ||
		   !strcmp(name, "statusrate") ||
		   !strcmp(name, "libdir")) {
		/* (libdir and nolibs act when the libraries are read: cmd/dtrace/libdir.c) */
		/* accepted; what they tune comes with issue #4 */
	} else {
		*ret_err = udt__xasprintf("failed to set option -x %s: Invalid option name", name);
		return -1;
	}
	return 0;
}
