/* SPDX-License-Identifier: MIT */
/*
 * The dtrace command: option parsing and dispatch.
 *
 * Build systems call it in place of SystemTap's script or illumos dtrace:
 *
 *	dtrace -h -s provider.d -o provider.h        header of probe macros
 *	dtrace -G -s provider.d -o provider.o a.o …  semaphores and probe table
 *
 * and people trace with it as with DTrace:
 *
 *	dtrace -l -p PID                             list a process's probes
 *	dtrace -n 'http*:::request-start { trace(arg0); }' -p PID
 *	dtrace -s script.d -c ./program
 *
 * Options and operands come in any order, attached ("-ofile") or separate.
 * Flags SystemTap's script accepts for compatibility are accepted too: -64
 * -32 -fpic -fPIC -k. Errors say "dtrace: ..." (or "file:line:col: error:
 * ...") and exit 1; usage errors exit 2.
 */
#include "cmd/dtrace/dtrace.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


static void usage(FILE *f)
{
	fprintf(f,
		"Usage: %s [-CeFHlOqSvVwZ] [-b bufsz] [-c cmd] [-D name[=def]] [-I path]\n"
		"\t[-L path] [-o output] [-p pid] [-s script] [-U name] [-x opt[=val]]\n"
		"\t[-X a|c|s|t]\n"
		"\t[-P provider [[ predicate ] action ]] [-m [ provider: ] module [[ predicate ] action ]]\n"
		"\t[-f [[ provider: ] module: ] func [[ predicate ] action ]]\n"
		"\t[-n [[[ provider: ] module: ] func: ] name [[ predicate ] action ]]\n"
		"\t[-i probe-id [[ predicate ] action ]]\n"
		"       %s -h -s file.d [-o file.h] [-C] [-I dir] [-D name[=def]] [-U name]\n"
		"       %s -G -s file.d [-o file.o] [-C] [-I dir] [-D name[=def]] [object ...]\n"
		"\n"
		"\t-b  set trace buffer size\n"
		"\t-c  run specified command and exit upon its completion\n"
		"\t-C  run cpp(1) preprocessor on script files\n"
		"\t-D  define symbol when invoking preprocessor\n"
		"\t-e  exit after compiling request but prior to enabling probes\n"
		"\t-f  enable or list probes matching the specified function name\n"
		"\t-G  generate an ELF file containing the semaphores and probe table\n"
		"\t-h  generate a header file with definitions for static probes\n"
		"\t-H  print included files when invoking preprocessor\n"
		"\t-i  enable or list probes matching the specified probe id\n"
		"\t-I  add include directory to preprocessor search path\n"
		"\t-l  list probes matching specified criteria\n"
		"\t-L  add library directory to library search path\n"
		"\t-m  enable or list probes matching the specified module name\n"
		"\t-n  enable or list probes matching the specified probe name\n"
		"\t-o  set output file\n"
		"\t-O  with -x oformat, print the aggregations at exit\n"
		"\t-p  grab specified process-ID and cache its symbol tables\n"
		"\t-P  enable or list probes matching the specified provider name\n"
		"\t-q  set quiet mode (only output explicitly traced data)\n"
		"\t-s  enable or list probes according to the specified D script\n"
		"\t-S  print D compiler intermediate code (accepted: nothing is printed)\n"
		"\t-U  undefine symbol when invoking preprocessor\n"
		"\t-v  set verbose mode (report stability attributes, arguments)\n"
		"\t-V  report DTrace API version\n"
		"\t-w  permit destructive actions\n"
		"\t-x  enable or modify compiler and tracing options\n"
		"\t-X  specify ISO C conformance settings for preprocessor\n"
		"\t-Z  permit probe descriptions that match zero probes\n"
		"\t--libxo FORMAT  the same as -x oformat=FORMAT (json, jsonl, xml)\n"
		"\t-32, -64, -fpic, -fPIC, -k  accepted for compatibility\n",
		udt__progname, udt__progname, udt__progname);
}

/* DTrace's -V: the version of D it compiles (as illumos's, which udtrace's D follows). */
#define D_VERSION_STRING "Sun D 1.13"

static _Noreturn void usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static _Noreturn void usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	udt__vwarn(fmt, ap);
	va_end(ap);
	usage(stderr);
	exit(2);
}

/* DTrace's "failed to set -x NAME: why" (or -b, -X), and exit 1 as DTrace's dfatal(). */
static _Noreturn void set_failed(const char *what, const char *why)
{
	fprintf(stderr, "%s: failed to set %s: %s\n", udt__progname, what, why);
	exit(1);
}

/* -X and -x stdc: the C dialect cpp is run in (a ANSI with extensions, c ISO C, s K&R, t
   transitional: DTrace's Sun cpp modes); -X and -x stdc say so in their errors. */
static void set_stdc(struct cmd_opts *o, bool dash_x, const char *v)
{
	if (!v || strlen(v) != 1 || !strchr("acst", *v)) {
		fprintf(stderr, "%s: failed to set %s%s: Invalid value for specified option\n",
			udt__progname, dash_x ? "-X " : "-x stdc", dash_x && v ? v : "");
		exit(1);
	}
	o->stdc = *v;
}

/*
 * -x NAME[=VALUE]. Those for cpp and for -c's environment act here (DTrace's
 * compile-time options, read before any script); the others go to the
 * consumer's options, applied around the program's pragmas (trace.c).
 */
static void x_option(struct cmd_opts *o, const char *arg, size_t *xcap, size_t *ccap,
		     size_t *ecap)
{
	char *name = udt__xstrdup(arg), *eq = strchr(name, '=');
	const char *v = eq ? eq + 1 : NULL;
	static const struct {
		const char *name;
		char flag;          /* the cpp option it is */
	} cpp_opts[] = { { "define", 'D' }, { "undef", 'U' }, { "incdir", 'I' } };

	if (eq)
		*eq = '\0';
	for (size_t i = 0; i < UDT__ARRAY_SIZE(cpp_opts); i++) {
		if (strcmp(name, cpp_opts[i].name))
			continue;
		if (!v || !*v)
			set_failed(name, "Invalid value for specified option");
		char *opt = udt__xasprintf("-%c%s", cpp_opts[i].flag, v);
		UDT__PUSH(o->cpp_args, o->cpp_arg_cnt, *ccap, opt);
		free(name);
		return;
	}
	if (!strcmp(name, "cpp")) {
		o->cpp = true;
	} else if (!strcmp(name, "cpphdrs")) {
		o->cpphdrs = true;
	} else if (!strcmp(name, "cpppath")) {
		if (!v || !*v)
			set_failed("-x cpppath", "Invalid value for specified option");
		o->cpppath = arg + (v - name);
	} else if (!strcmp(name, "stdc")) {
		set_stdc(o, false, v);
	} else if (!strcmp(name, "setenv") || !strcmp(name, "unsetenv")) {
		/* -c's command's environment: NAME=VALUE to set, NAME to unset */
		if (!v || !*v || *v == '=' || (name[0] == 's') != (strchr(v, '=') != NULL))
			set_failed(name[0] == 's' ? "-x setenv" : "-x unsetenv",
				   "Invalid value for specified option");
		UDT__PUSH(o->cmd_env, o->cmd_env_cnt, *ecap, arg + (v - name));
	} else {
		UDT__PUSH(o->xopts, o->xopt_cnt, *xcap, udt__xstrdup(arg));
	}
	free(name);
}

/* Options that take an argument, attached ("-ofile") or separate ("-o file"). */
static const char opts_with_arg[] = "sobIDLUxXcpnPmfi";

static void parse_args(int argc, char **argv, struct cmd_opts *o)
{
	size_t scap = 0, ccap = 0, ocap = 0, pcap = 0, xcap = 0, lcap = 0, ecap = 0;

	o->model = DL_LP64;
	cs_opts_init(&o->copts);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (a[0] != '-' || !a[1]) {
			UDT__PUSH(o->objects, o->object_cnt, ocap, a);
			continue;
		}
		/* whole-word flags first: they would read as clusters otherwise */
		if (!strcmp(a, "-64")) {
			o->model = DL_LP64;
			continue;
		}
		if (!strcmp(a, "-32")) {
			o->model = DL_ILP32;
			continue;
		}
		if (!strcmp(a, "-fpic") || !strcmp(a, "-fPIC"))
			continue;
		/* no option is a digit: "-7" is a (negative) macro argument */
		if (a[1] >= '0' && a[1] <= '9') {
			UDT__PUSH(o->objects, o->object_cnt, ocap, a);
			continue;
		}
		if (!strcmp(a, "--help")) {
			usage(stdout);
			exit(0);
		}
		if (!strcmp(a, "--version")) {
			printf("udtrace %s (%s)\n", UDTRACE_VERSION, D_VERSION_STRING);
			exit(0);
		}
		/* FreeBSD's: the same as -x oformat=FORMAT */
		if (!strcmp(a, "--libxo") || !strncmp(a, "--libxo=", 8)) {
			const char *v = a[7] ? a + 8 : NULL;
			if (!v && ++i >= argc)
				usage_error("option --libxo requires an argument");
			UDT__PUSH(o->xopts, o->xopt_cnt, xcap,
				  udt__xasprintf("oformat=%s", v ? v : argv[i]));
			continue;
		}
		if (!strcmp(a, "--")) {
			for (i++; i < argc; i++)
				UDT__PUSH(o->objects, o->object_cnt, ocap, argv[i]);
			break;
		}
		for (const char *c = a + 1; *c; c++) {
			if (strchr(opts_with_arg, *c)) {
				const char *val = c[1] ? c + 1 : NULL;

				if (!val) {
					if (++i >= argc)
						usage_error("option -%c requires an argument", *c);
					val = argv[i];
				}
				switch (*c) {
				case 's':
				case 'n':
				case 'P':
				case 'm':
				case 'f':
				case 'i': {
					struct cmd_prog pr = { .kind = *c, .arg = val };
					UDT__PUSH(o->progs, o->prog_cnt, pcap, pr);
					if (*c == 's') /* a definition for -h/-G, or a script */
						UDT__PUSH(o->sources, o->source_cnt, scap, val);
					break;
				}
				case 'o':
					o->output = val;
					break;
				case 'I':
				case 'D':
				case 'U': {
					char *opt = udt__xasprintf("-%c%s", *c, val);
					UDT__PUSH(o->cpp_args, o->cpp_arg_cnt, ccap, opt);
					break;
				}
				case 'x':
					x_option(o, val, &xcap, &ccap, &ecap);
					break;
				case 'L':
					UDT__PUSH(o->libdirs, o->libdir_cnt, lcap, val);
					break;
				case 'b':
					UDT__PUSH(o->xopts, o->xopt_cnt, xcap,
						  udt__xasprintf("b=%s", val));
					break;
				case 'X':
					set_stdc(o, true, val);
					break;
				case 'p': {
					char *end;
					long pid = strtol(val, &end, 10);
					if (*end || pid <= 0 || pid > 0x7fffffff)
						usage_error("invalid process ID: %s", val);
					if (o->pid || o->command)
						usage_error("only one -p or -c process is supported");
					o->pid = (pid_t)pid;
					break;
				}
				case 'c':
					if (o->pid || o->command)
						usage_error("only one -p or -c process is supported");
					o->command = val;
					break;
				}
				break; /* the rest of the word was the argument */
			}
			switch (*c) {
			case 'h':
			case 'G':
			case 'l':
				if (o->mode != MODE_NONE && o->mode != (*c == 'h' ? MODE_HEADER :
									*c == 'G' ? MODE_OBJECT :
									MODE_LIST))
					usage_error("-h, -G and -l cannot be used together");
				o->mode = *c == 'h' ? MODE_HEADER : *c == 'G' ? MODE_OBJECT : MODE_LIST;
				break;
			case 'C':
				o->cpp = true;
				break;
			case 'k':
				o->keep = true;
				break;
			case 'q':
				UDT__PUSH(o->xopts, o->xopt_cnt, xcap, udt__xstrdup("quiet"));
				break;
			case 'v':
				o->verbose = true;
				break;
			case 'e':
				o->exit_after_compile = true;
				break;
			case 'w':
				UDT__PUSH(o->xopts, o->xopt_cnt, xcap, udt__xstrdup("destructive"));
				break;
			case 'Z':
				UDT__PUSH(o->xopts, o->xopt_cnt, xcap, udt__xstrdup("zdefs"));
				break;
			case 'F':
				UDT__PUSH(o->xopts, o->xopt_cnt, xcap, udt__xstrdup("flowindent"));
				break;
			case 'S':
				break; /* show compiler intermediate code: not available */
			case 'O':
				o->copts.out.aggprint = true; /* (FreeBSD's: oformat prints them at exit) */
				break;
			case 'H':
				o->cpphdrs = true;
				break;
			case 'V':
				/* as DTrace's: the version alone, for scripts that read it */
				printf("%s: %s\n", udt__progname, D_VERSION_STRING);
				exit(0);
			case 'A':
			case 'a':
				usage_error("anonymous tracing (-%c) needs a kernel: udtrace traces "
					    "processes", *c);
			default:
				usage_error("invalid option -- '%c'", *c);
			}
		}
	}
	if (o->mode == MODE_NONE && o->prog_cnt)
		o->mode = MODE_TRACE;
}

int main(int argc, char **argv)
{
	struct cmd_opts o = { 0 };
	int ret = 1;

	parse_args(argc, argv, &o);
	switch (o.mode) {
	case MODE_NONE:
		/* -e with nothing to compile: the options are checked, and that is all */
		if (o.exit_after_compile) {
			ret = cmd_check_options(&o);
			break;
		}
		usage_error("no mode given: -h writes a header, -G an object, -l lists probes, "
			    "-n, -s, -P, -m or -f trace");
	case MODE_HEADER:
	case MODE_OBJECT:
		if (!o.source_cnt || o.source_cnt != o.prog_cnt)
			usage_error("-%c needs a D program given with -s file.d",
				    o.mode == MODE_HEADER ? 'h' : 'G');
		if (o.mode == MODE_HEADER && o.object_cnt)
			usage_error("-h takes no objects (\"%s\")", o.objects[0]);
		ret = o.mode == MODE_HEADER ? cmd_header(&o) : cmd_object(&o);
		break;
	case MODE_LIST:
	case MODE_TRACE:
		ret = o.mode == MODE_LIST ? cmd_list(&o) : cmd_trace(&o);
		break;
	}
	for (size_t i = 0; i < o.cpp_arg_cnt; i++)
		free((char *)o.cpp_args[i]);
	for (size_t i = 0; i < o.xopt_cnt; i++)
		free((char *)o.xopts[i]);
	free(o.cpp_args);
	free(o.xopts);
	free(o.sources);
	free(o.progs);
	free(o.objects);
	free(o.libdirs);
	free(o.cmd_env);
	return ret;
}
