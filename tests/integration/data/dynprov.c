/* SPDX-License-Identifier: MIT */
/*
 * A program with a dynamic provider (udtrace/udtrace.h): provider "dyn",
 * probes
 *	dyn:main:hello(string, int16, double)
 *	dyn::all-types(int8 uint8 int16 uint16 int32 uint32 int64 uint64 string pointer double int32)
 *
 *	dynprov once N      load, fire each probe N times (i = 0..N-1), free
 *	dynprov loop        load, print "path PATH" (what bpftrace opens) and
 *	                    "ready PID" on stderr, fire both every 10 ms until
 *	                    standard input says "unload" (the provider is freed,
 *	                    the program goes on: "unloaded after I", the last i
 *	                    fired) or closes
 *	dynprov cycles N    create, add, load, fire, free N times; print the
 *	                    resident set size before and after ("rss KB KB")
 */
#include <udtrace/udtrace.h>

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const enum udt_type hello_types[] = { UDT_TYPE_STRING, UDT_TYPE_INT16, UDT_TYPE_DOUBLE };
static const enum udt_type all_types[] = {
	UDT_TYPE_INT8,   UDT_TYPE_UINT8,  UDT_TYPE_INT16,  UDT_TYPE_UINT16,
	UDT_TYPE_INT32,  UDT_TYPE_UINT32, UDT_TYPE_INT64,  UDT_TYPE_UINT64,
	UDT_TYPE_STRING, UDT_TYPE_POINTER, UDT_TYPE_DOUBLE, UDT_TYPE_INT32,
};

static int answer = 42;
static struct udt_provider *prov;
static struct udt_probe *hello, *all;

static void die(const char *what, int err)
{
	fprintf(stderr, "dynprov: %s: %s\n", what, strerror(-err));
	exit(1);
}

static void make(void)
{
	int err = udt_provider_create("dyn", NULL, &prov);

	if (err)
		die("udt_provider_create", err);
	err = udt_provider_add_probe(prov, "main", "hello", hello_types, 3, &hello);
	if (!err)
		err = udt_provider_add_probe(prov, NULL, "all-types", all_types, 12, &all);
	if (err)
		die("udt_provider_add_probe", err);
	err = udt_provider_load(prov);
	if (err)
		die("udt_provider_load", err);
}

static void fire(int i)
{
	if (udt_probe_enabled(hello))
		udt_probe_fire(hello, i % 2 ? "odd" : "even", (int16_t)(-7 - i), 2.75 + i);
	udt_probe_fire(all, (int8_t)-128, (uint8_t)255, (int16_t)-32768, (uint16_t)65535,
		       (int32_t)-2147483647 - 1, (uint32_t)4294967295u, (int64_t)-1234567890123,
		       (uint64_t)18446744073709551615ull, "all", (void *)&answer, -1e30, i);
}

static long rss_kb(void)
{
	FILE *f = fopen("/proc/self/statm", "r");
	long pages = 0, res = 0;

	if (f) {
		if (fscanf(f, "%ld %ld", &pages, &res) != 2)
			res = 0;
		fclose(f);
	}
	return res * (sysconf(_SC_PAGESIZE) / 1024);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "once";
	int n = argc > 2 ? atoi(argv[2]) : 1;
	char path[64];

	if (!strcmp(mode, "cycles")) {
		long before = 0;

		for (int c = 0; c < n; c++) {
			make();
			fire(c);
			udt_provider_free(prov);
			if (c == n / 10)
				before = rss_kb(); /* after the allocator and the loader warmed up */
		}
		printf("rss %ld %ld\n", before, rss_kb());
		return 0;
	}
	make();
	if (!strcmp(mode, "once")) {
		for (int i = 0; i < n; i++)
			fire(i);
		udt_provider_free(prov);
		printf("done\n");
		return 0;
	}
	if (udt_provider_path(prov, path, sizeof(path)) < 0)
		strcpy(path, "none");
	fprintf(stderr, "path %s\nready %d\n", path, (int)getpid());
	for (int i = 0;; i++) {
		struct pollfd pfd = { 0, POLLIN, 0 };
		char line[64];
		ssize_t r;

		fire(i);
		if (poll(&pfd, 1, 10) <= 0)
			continue;
		r = read(0, line, sizeof(line) - 1);
		if (r <= 0)
			break;
		line[r] = '\0';
		if (!strncmp(line, "unload", 6) && prov) {
			udt_provider_free(prov);
			prov = NULL;
			hello = all = NULL;
			fprintf(stderr, "unloaded after %d\n", i); /* the last i fired */
		}
	}
	udt_provider_free(prov);
	printf("done\n");
	return 0;
}
