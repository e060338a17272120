/* SPDX-License-Identifier: MIT */
/*
 * Consumer options: -x name=value, -b, -q and "#pragma D option", with
 * DTrace's names, defaults and suffixes (the buffer chapter: bufsize 4m,
 * switchrate 1hz, bufpolicy switch, bufresize auto).
 */
#include "consumer/consumer.h"
#include "abi/abi.h"
#include "util/util.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
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
	o->tbuf_max = UDT_TBUF_LIMIT; /* (buffers at once: given back at threads' exits) */
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
	o->maxframes = UDT_USTACK_MAX;
	o->out.stackindent = 14;
	o->maxprocs = 4096;
}

/* DTrace's reasons (dt_error.c's messages), for the callers' "failed to set -x NAME: why". */
#define BAD_NAME "Invalid option name"
#define BAD_VALUE "Invalid value for specified option"

/*
 * DTrace's versions of D (its _dtrace_versions[]): -x version takes one of
 * them. Nothing here depends on the version chosen (docs/d-language.md).
 */
static const char *const d_versions[] = {
	"1.0", "1.1", "1.2", "1.2.1", "1.2.2", "1.3", "1.4", "1.4.1", "1.5", "1.6", "1.6.1",
	"1.6.2", "1.6.3", "1.7", "1.7.1", "1.8", "1.8.1", "1.9", "1.9.1", "1.10", "1.11", "1.12",
	"1.12.1", "1.13",
};

/* -x version=V: 0, or DTrace's reason. The version is kept encoded, as DTrace's. */
static const char *set_version(struct cs_opts *o, const char *value)
{
	unsigned v[3] = { 0, 0, 0 }, n = 0;
	const char *p = value;

	if (!p || !*p)
		return BAD_VALUE;
	/* "major.minor[.micro]", at most 255.4095.4095 (DT_VERSION_STRMAX's digits) */
	while (n < 3 && isdigit((unsigned char)*p)) {
		char *end;
		unsigned long x = strtoul(p, &end, 10);
		if (x > (n ? 4095 : 255))
			return "Version is not properly formatted or is too large";
		v[n++] = (unsigned)x;
		p = end;
		if (*p != '.')
			break;
		p++;
	}
	if (*p || n < 2)
		return "Version is not properly formatted or is too large";
	uint32_t enc = v[0] << 24 | v[1] << 12 | v[2];
	bool known = false;
	for (size_t i = 0; i < UDT__ARRAY_SIZE(d_versions) && !known; i++) {
		unsigned a = 0, b = 0, c = 0;
		sscanf(d_versions[i], "%u.%u.%u", &a, &b, &c);
		known = enc == (a << 24 | b << 12 | c);
	}
	if (!known)
		return "Requested version is not supported by compiler";
	if (o->version && o->version != enc)
		return "Requested version conflicts with earlier setting";
	o->version = enc;
	return NULL;
}

/* A size option: a positive number of bytes, with DTrace's suffixes; 0, or -1 when invalid. */
static int size_value(const char *value, uint64_t max, uint64_t *ret)
{
	uint64_t v;

	if (udt__parse_size(value, &v) || !v || v > max)
		return -1;
	*ret = (v + 7) & ~7ull; /* (the runtime lays memory out in words) */
	return 0;
}

/*
 * DTrace's options that tune what udtrace does not have (a kernel, DOF,
 * CTF, Java stacks, the D compiler's dumps), or that dtrace reads elsewhere
 * (cmd/dtrace: -x cpp, define, undef, incdir, cpphdrs, cpppath, stdc,
 * setenv, unsetenv, libdir, nolibs): accepted, as DTrace accepts them,
 * with no effect here (docs/d-language.md, "Options").
 */
static const char *const accepted[] = {
	"core", "ctypes", "dtypes", "debug", "droptags", "iregs", "tregs", "kdefs", "knodefs",
	"udefs", "unodefs", "late", "lazyload", "ldpath", "linkmode", "linktype", "pgmax", "pspec",
	"strip", "syslibdir", "tree", "verbose", "amin", "statusrate", "jstackframes",
	"jstackstrsize", "stackframes",
	"cpp", "define", "undef", "incdir", "cpphdrs", "cpppath", "stdc", "setenv", "unsetenv",
	"libdir", "nolibs",
};

/* DTrace's options udtrace cannot honour, and why (so they are not silently wrong). */
static const struct {
	const char *name, *why;
} refused[] = {
	{ "cpu", "not supported: buffers are per thread, not per CPU" },
	{ "grabanon", "not supported: anonymous tracing needs a kernel" },
	{ "aggpercpu", "not supported: aggregations are per thread, not per CPU" },
	{ "agghist", "not supported" },
	{ "aggpack", "not supported" },
	{ "aggzoom", "not supported" },
};

const char *cs_opt_set(struct cs_opts *o, const char *name, const char *value)
{
	uint64_t v;

	if (!strcmp(name, "bufsize") || !strcmp(name, "b")) {
		/* (raised to what the largest record needs when tracing starts: enable.c) */
		if (size_value(value, UINT64_MAX >> 1, &v))
			return BAD_VALUE;
		o->bufsize = v;
	} else if (!strcmp(name, "switchrate")) {
		if (udt__parse_time(value, true, &v))
			return BAD_VALUE;
		o->switchrate_ns = v;
	} else if (!strcmp(name, "bufpolicy")) {
		if (!value)
			return BAD_VALUE;
		if (!strcmp(value, "switch"))
			o->policy = UDT_POLICY_SWITCH;
		else if (!strcmp(value, "fill"))
			o->policy = UDT_POLICY_FILL;
		else if (!strcmp(value, "ring"))
			o->policy = UDT_POLICY_RING;
		else
			return BAD_VALUE;
	} else if (!strcmp(name, "bufresize")) {
		if (value && !strcmp(value, "auto"))
			o->bufresize_manual = false;
		else if (value && !strcmp(value, "manual"))
			o->bufresize_manual = true;
		else
			return BAD_VALUE;
	} else if (!strcmp(name, "temporal")) {
		o->temporal = true;
	} else if (!strcmp(name, "quiet")) {
		o->out.quiet = true;
	} else if (!strcmp(name, "zdefs")) {
		o->zdefs = true;
	} else if (!strcmp(name, "nofollowfork")) {
		/* a traced process's fork children leave the session (docs/processes.md) */
		o->nofollowfork = true;
	} else if (!strcmp(name, "cmdstatus")) {
		/* dtrace exits with -c's command's status, not DTrace's 0 (dtrace(1)) */
		o->cmdstatus = true;
	} else if (!strcmp(name, "destructive")) {
		o->destructive = true;
	} else if (!strcmp(name, "flowindent")) {
		o->out.flowindent = true;
	} else if (!strcmp(name, "rawbytes")) {
		o->out.rawbytes = true;
	} else if (!strcmp(name, "argref")) {
		o->argref = true;
	} else if (!strcmp(name, "deadman")) {
		if (udt__parse_time(value, false, &v) || v < 100000000ull)
			return BAD_VALUE;
		o->deadman_ns = v;
	} else if (!strcmp(name, "maxthreads")) {
		if (udt__parse_size(value, &v) || !v || v > UDT_TBUF_LIMIT)
			return BAD_VALUE;
		o->tbuf_max = (uint32_t)v;
	} else if (!strcmp(name, "strsize")) {
		/* (a string of one byte would hold its NUL only) */
		if (udt__parse_size(value, &v) || v < 2 || v > UDT_STRSIZE_MAX)
			return BAD_VALUE;
		o->strsize = v;
	} else if (!strcmp(name, "aggsize")) {
		/* the runtime maps whole pages, and needs room for its hash and a key: a smaller
		   size is raised to that, as DTrace raises its dynamic variable space */
		if (size_value(value, 1ull << 31, &v))
			return BAD_VALUE;
		o->aggsize = v < 16384 ? 16384 : (v + 4095) & ~4095ull;
	} else if (!strcmp(name, "aggrate")) {
		if (udt__parse_time(value, true, &v))
			return BAD_VALUE;
		o->aggrate_ns = v;
	} else if (!strcmp(name, "aggsortkey")) {
		o->aggsortkey = true;
	} else if (!strcmp(name, "aggsortrev")) {
		o->aggsortrev = true;
	} else if (!strcmp(name, "aggsortkeypos") || !strcmp(name, "aggsortpos")) {
		/* (aggsortpos: which aggregation of a printa() of several sorts first) */
		if (!value || udt__parse_size(value, &v) || v > 255)
			return BAD_VALUE;
		if (!strcmp(name, "aggsortkeypos"))
			o->aggsortkeypos = (uint32_t)v;
		else
			o->aggsortpos = (uint32_t)v;
	} else if (!strcmp(name, "defaultargs")) {
		o->defaultargs = true;
	} else if (!strcmp(name, "empty")) {
		o->empty = true;
	} else if (!strcmp(name, "errtags")) {
		o->errtags = true;
	} else if (!strcmp(name, "nspec")) {
		if (udt__parse_size(value, &v) || !v || v > UDT_MAX_NSPEC)
			return BAD_VALUE;
		o->nspec = (uint32_t)v;
	} else if (!strcmp(name, "specsize")) {
		/* (a record larger than it is a speculative drop) */
		if (size_value(value, 1ull << 30, &v))
			return BAD_VALUE;
		o->specsize = v;
	} else if (!strcmp(name, "dynvarsize")) {
		/* (raised to what holds one element when the program's is known: vars.c) */
		if (size_value(value, 16ull << 30, &v))
			return BAD_VALUE;
		o->dynvarsize = v;
	} else if (!strcmp(name, "scratchsize")) {
		if (size_value(value, UDT_SCRATCH_MAX, &v))
			return BAD_VALUE;
		o->scratchsize = v;
	} else if (!strcmp(name, "cleanrate")) {
		if (udt__parse_time(value, true, &v))
			return BAD_VALUE;
		o->cleanrate_ns = v;
	} else if (!strcmp(name, "ustackframes") || !strcmp(name, "maxframes")) {
		/* maxframes (Oracle's): the most any ustack() records; more asked are capped */
		if (udt__parse_size(value, &v) || !v || v > UDT_USTACK_MAX)
			return BAD_VALUE;
		*(!strcmp(name, "maxframes") ? &o->maxframes : &o->ustackframes) = (uint32_t)v;
	} else if (!strcmp(name, "maxprocs")) {
		/* the processes followed besides -p's or -c's (docs/processes.md, "Limits") */
		if (!value || udt__parse_size(value, &v) || !v || v > 1000000)
			return BAD_VALUE;
		o->maxprocs = (uint32_t)v;
	} else if (!strcmp(name, "stackindent")) {
		if (!value || udt__parse_size(value, &v) || v > 1024)
			return BAD_VALUE;
		o->out.stackindent = (uint32_t)v;
	} else if (!strcmp(name, "version")) {
		return set_version(o, value);
	} else if (!strcmp(name, "evaltime")) {
		/* when -c's program is traced from: here always before its main() */
		if (!value || (strcmp(value, "exec") && strcmp(value, "preinit") &&
			       strcmp(value, "postinit") && strcmp(value, "main")))
			return BAD_VALUE;
	} else if (!strcmp(name, "oformat")) {
		/* text, json, jsonl, xml (docs/output.md) */
		const char *form;
		bool pretty;
		if (!value || strlen(value) >= sizeof(o->out.oformat) ||
		    out_format_parse(value, &form, &pretty))
			return BAD_VALUE;
		strcpy(o->out.oformat, value);
	} else if (!strcmp(name, "ctfdir")) {
		/* a CTF trace of the records, written into that directory (docs/output.md) */
		if (!value || !*value || strlen(value) >= sizeof(o->out.ctfdir))
			return BAD_VALUE;
		strcpy(o->out.ctfdir, value);
	} else if (!strcmp(name, "aggfmt")) {
		/* folded: FlameGraph's folded stacks (docs/profile.md) */
		if (value && !strcmp(value, "folded"))
			o->out.agg_folded = true;
		else if (value && !strcmp(value, "dtrace"))
			o->out.agg_folded = false;
		else
			return BAD_VALUE;
	} else if (!strcmp(name, "procwatch")) {
		/* how processes are found (docs/processes.md): the kernel's events where allowed,
		   or scanning /proc only */
		if (value && !strcmp(value, "auto"))
			o->procwatch = PR_WATCH_AUTO;
		else if (value && !strcmp(value, "scan"))
			o->procwatch = PR_WATCH_SCAN;
		else if (value && !strcmp(value, "events"))
			o->procwatch = PR_WATCH_EVENTS;
		else
			return BAD_VALUE;
	} else if (!strcmp(name, "notesites")) {
		/* SystemTap sites: a jump where sound, else a trap (docs/notes.md); or traps only */
		if (value && !strcmp(value, "auto"))
			o->note_traps = false;
		else if (value && !strcmp(value, "trap"))
			o->note_traps = true;
		else
			return BAD_VALUE;
	} else if (!strcmp(name, "pidsites")) {
		/* the pid provider's sites: likewise (docs/pid.md) */
		if (value && !strcmp(value, "auto"))
			o->pid_traps = false;
		else if (value && !strcmp(value, "trap"))
			o->pid_traps = true;
		else
			return BAD_VALUE;
	} else if (!strcmp(name, "profclock")) {
		/* how profile-n samples are timed (docs/profile.md) */
		if (value && !strcmp(value, "auto"))
			o->prof_clock = CS_PROFCLOCK_AUTO;
		else if (value && !strcmp(value, "timer"))
			o->prof_clock = CS_PROFCLOCK_TIMER;
		else if (value && !strcmp(value, "perf"))
			o->prof_clock = CS_PROFCLOCK_PERF;
		else
			return BAD_VALUE;
	} else {
		for (size_t i = 0; i < UDT__ARRAY_SIZE(accepted); i++)
			if (!strcmp(name, accepted[i]))
				return NULL;
		for (size_t i = 0; i < UDT__ARRAY_SIZE(refused); i++)
			if (!strcmp(name, refused[i].name))
				return refused[i].why;
		return BAD_NAME;
	}
	return NULL;
}
