/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of dynamic providers (runtime/dynprov.c, elfmem.c, tables.c)
 * and of SDT(9) registration (runtime/sdt.c), with the runtime linked in:
 * the API's checks, the probe table a loaded provider registers, the
 * dispatch contract of a fire (as udtrace's consumer would see it), the
 * in-memory object as the dynamic linker loaded it, and 10,000
 * create/load/fire/free cycles that leave no descriptor, mapping, registry
 * entry or (under make check's LeakSanitizer) memory behind. This file also
 * defines an SDT(9) provider, so the linker set is walked under ASan.
 */
#define HARNESS_MAIN
#include "tests/harness.h"

#include "runtime/internal.h"
#include "runtime/tables.h"

#include <dirent.h>
#include <errno.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "udtrace/sdt.h"
#include "udtrace/udtrace.h"

SDT_PROVIDER_DEFINE(unit);
SDT_PROBE_DEFINE2(unit, , , two, "int", "const char *");
SDT_PROBE_DEFINE1_XLATE(unit, mymod, myfunc, xl, "struct foo *", "struct bar *");

static const enum udt_type hello_types[] = { UDT_TYPE_STRING, UDT_TYPE_INT16, UDT_TYPE_DOUBLE };

/* The registered table of provider name, or NULL. */
static const struct udt_table_hdr *find_table(const char *name)
{
	uint32_t n = udt__registry.cnt < UDT_REG_MAX ? udt__registry.cnt : UDT_REG_MAX;

	for (uint32_t i = 0; i < n; i++) {
		const struct udt_table_hdr *t = (const void *)(uintptr_t)udt__registry.slots[i].table;
		const struct udt_table_provider *pv;

		if (!t)
			continue;
		pv = (const void *)((const char *)t + t->provider_off);
		if (!strcmp((const char *)t + t->str_off + pv->name, name))
			return t;
	}
	return NULL;
}

static const struct udt_table_probe *tprobe(const struct udt_table_hdr *t, uint32_t i)
{
	return (const void *)((const char *)t + t->probe_off + (size_t)i * t->probe_sz);
}

static const char *tstr(const struct udt_table_hdr *t, uint32_t off)
{
	return (const char *)t + t->str_off + off;
}

static const struct udt_table_arg *targ(const struct udt_table_hdr *t, uint32_t i)
{
	return (const void *)((const char *)t + t->arg_off + (size_t)i * t->arg_sz);
}

static volatile unsigned short *tsem(const struct udt_table_hdr *t, uint32_t i)
{
	const struct udt_table_probe *p = tprobe(t, i);

	return (volatile unsigned short *)(uintptr_t)((const char *)&p->sem_rel + p->sem_rel);
}

static udt__dispatch_fn *tdispatch(const struct udt_table_hdr *t)
{
	return (udt__dispatch_fn *)(uintptr_t)((const char *)&t->dispatch_rel + t->dispatch_rel);
}

/* What the last dispatched fire gave (the consumer's view: udt__fire's arguments). */
static struct {
	const volatile unsigned short *sem;
	unsigned nargs;
	uint64_t v[12];
	int calls;
} got;

static void record(const volatile unsigned short *sem, unsigned nargs, uint64_t a0, uint64_t a1,
		   uint64_t a2, uint64_t a3)
{
	got.sem = sem;
	got.nargs = nargs;
	got.calls++;
	if (nargs <= 4) {
		uint64_t v[4] = { a0, a1, a2, a3 };
		memcpy(got.v, v, sizeof(v));
	} else {
		memcpy(got.v, (const void *)(uintptr_t)a0, nargs * 8);
	}
}

TEST(api_checks)
{
	struct udt_provider *p = NULL;
	struct udt_probe *pr = NULL;
	enum udt_type bad = (enum udt_type)99;

	CHECK_EQ(udt_provider_create("9lives", NULL, &p), -EINVAL);
	CHECK_EQ(udt_provider_create("ends1", NULL, &p), -EINVAL);
	CHECK_EQ(udt_provider_create("has-dash", NULL, &p), -EINVAL);
	CHECK_EQ(udt_provider_create("", NULL, &p), -EINVAL);
	{
		struct udt_provider_opts o[2];

		memset(o, 0, sizeof(o));
		o[0].sz = sizeof(o); /* a newer caller's size: its unknown tail must be 0 */
		CHECK_EQ(udt_provider_create("ok", &o[0], &p), 0);
		udt_provider_free(p);
		((char *)&o[1])[3] = 1;
		CHECK_EQ(udt_provider_create("ok", &o[0], &p), -EINVAL);
		o[0].sz = sizeof(o[0]);
		o[0].flags = 0x100;
		CHECK_EQ(udt_provider_create("ok", &o[0], &p), -EINVAL);
	}
	REQUIRE_EQ(udt_provider_create("chk", NULL, &p), 0);
	CHECK_EQ(udt_provider_add_probe(p, NULL, "bad name", hello_types, 3, &pr), -EINVAL);
	CHECK_EQ(udt_provider_add_probe(p, "f:g", "x", hello_types, 3, &pr), -EINVAL);
	CHECK_EQ(udt_provider_add_probe(p, NULL, "x", &bad, 1, &pr), -EINVAL);
	CHECK_EQ(udt_provider_add_probe(p, NULL, "x", hello_types, 13, &pr), -EINVAL);
	CHECK_EQ(udt_provider_add_probe(p, NULL, "x", hello_types, 3, &pr), 0);
	CHECK_EQ(udt_provider_add_probe(p, NULL, "x", hello_types, 1, NULL), -EEXIST);
	CHECK_EQ(udt_provider_add_probe(p, "other", "x", hello_types, 1, NULL), 0);
	CHECK(!udt_probe_enabled(pr));
	udt_probe_fire(pr, "not loaded", 1, 1.0); /* nothing happens */
	REQUIRE_EQ(udt_provider_load(p), 0);
	CHECK_EQ(udt_provider_load(p), 0);
	CHECK_EQ(udt_provider_add_probe(p, NULL, "y", NULL, 0, NULL), -EBUSY);
	CHECK_EQ(udt_probe_remove(pr), -EBUSY);
	CHECK_EQ(udt_provider_unload(p), 0);
	CHECK_EQ(udt_probe_remove(pr), 0);
	CHECK_EQ(udt_provider_add_probe(p, NULL, "x", NULL, 0, NULL), 0);
	udt_provider_free(p);
	udt_provider_free(NULL);
}

TEST(table_and_fire)
{
	struct udt_provider *p = NULL;
	struct udt_probe *hello = NULL, *many = NULL;
	const enum udt_type many_types[6] = { UDT_TYPE_INT8, UDT_TYPE_UINT8, UDT_TYPE_UINT32,
					      UDT_TYPE_INT64, UDT_TYPE_POINTER, UDT_TYPE_DOUBLE };
	UDT_OPTS(udt_provider_opts, o, .module = "mymodule");
	char path[64];
	int x = 1;

	REQUIRE_EQ(udt_provider_create("tbl", &o, &p), 0);
	REQUIRE_EQ(udt_provider_add_probe(p, "fn", "req-done", hello_types, 3, &hello), 0);
	REQUIRE_EQ(udt_provider_add_probe(p, NULL, "many", many_types, 6, &many), 0);
	CHECK(!find_table("tbl"));
	REQUIRE_EQ(udt_provider_load(p), 0);
	const struct udt_table_hdr *t = find_table("tbl");
	REQUIRE(t);
	REQUIRE_EQ(t->probe_cnt, 2);
	CHECK_EQ(t->probe_sz, sizeof(struct udt_table_probe));
	CHECK_STR(tstr(t, tprobe(t, 0)->name), "req__done");
	CHECK_STR(tstr(t, tprobe(t, 0)->module), "mymodule");
	CHECK_EQ(tprobe(t, 0)->func_cnt, 1);
	CHECK_EQ(tprobe(t, 1)->func_cnt, 0);
	CHECK_EQ(tprobe(t, 0)->narg_cnt, 3);
	CHECK_STR(tstr(t, targ(t, 0)->type), "string");
	CHECK_EQ(targ(t, 0)->kind, UDT_ARG_STRING);
	CHECK_STR(tstr(t, targ(t, 1)->type), "int16_t");
	CHECK_EQ(targ(t, 1)->size, 2);
	CHECK_EQ(targ(t, 1)->is_signed, 1);
	CHECK_STR(tstr(t, targ(t, 2)->type), "int64_t");

	/* the object: its path for tracers, its notes in the loaded image */
	int len = udt_provider_path(p, path, sizeof(path));
	REQUIRE(len > 0);
	char want[64];
	snprintf(want, sizeof(want), "/proc/%d/fd/", (int)getpid());
	CHECK(!strncmp(path, want, strlen(want)));
	CHECK_EQ(udt_provider_path(p, path, 4), -ERANGE);

	/* enabled as udtrace's consumer enables it: dispatch pointer, then semaphore */
	CHECK(!udt_probe_enabled(hello));
	*tdispatch(t) = record;
	(*tsem(t, 0))++;
	CHECK(udt_probe_enabled(hello));
	CHECK(!udt_probe_enabled(many));
	memset(&got, 0, sizeof(got));
	udt_probe_fire(hello, "str", (int16_t)-7, 2.75);
	CHECK_EQ(got.calls, 1);
	CHECK(got.sem == tsem(t, 0));
	CHECK_EQ(got.nargs, 3);
	CHECK_STR((const char *)(uintptr_t)got.v[0], "str");
	CHECK_EQ((int64_t)got.v[1], -7);
	CHECK_EQ((int64_t)got.v[2], 2);
	udt_probe_fire(hello, "str", (int16_t)-7, -1e300);
	CHECK_EQ((int64_t)got.v[2], INT64_MIN);
	udt_probe_fire(many, 1, 2, 3u, (int64_t)4, (void *)&x, 5.0); /* not enabled */
	CHECK_EQ(got.calls, 2);
	(*tsem(t, 1))++;
	union udt_value v[6] = { { .i = -1 }, { .u = 0x1ff }, { .u = 0xffffffffffull },
				 { .i = -5 }, { .p = &x }, { .d = -3.9 } };
	udt_probe_firev(many, v, 6);
	CHECK_EQ(got.calls, 3);
	CHECK_EQ(got.nargs, 6);
	CHECK_EQ((int64_t)got.v[0], -1);
	CHECK_EQ(got.v[1], 0xff);
	CHECK_EQ(got.v[2], 0xffffffffull);
	CHECK_EQ((int64_t)got.v[3], -5);
	CHECK(got.v[4] == (uint64_t)(uintptr_t)&x);
	CHECK_EQ((int64_t)got.v[5], -3);
	udt_probe_firev(many, v, 2); /* missing ones are 0 */
	CHECK_EQ(got.v[2], 0);

	/* unloaded: the table is gone, the probes never fire */
	udt_provider_unload(p);
	CHECK(!find_table("tbl"));
	CHECK(!udt_probe_enabled(hello));
	udt_probe_fire(hello, "str", (int16_t)-7, 2.75);
	CHECK_EQ(got.calls, 4);
	CHECK_EQ(udt_provider_path(p, path, sizeof(path)), -ENOENT);
	udt_provider_free(p);
}

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	if (!d)
		return -1;
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

static int count_maps(const char *needle)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		n += strstr(line, needle) != NULL;
	fclose(f);
	return n;
}

TEST(cycles_leave_nothing)
{
	int fds = count_fds();
	uint32_t reg_before = udt__registry.cnt;

	for (int c = 0; c < 10000; c++) {
		struct udt_provider *p = NULL;
		struct udt_probe *pr = NULL;

		if (udt_provider_create("cyc", NULL, &p) ||
		    udt_provider_add_probe(p, "f", "p", hello_types, 3, &pr) ||
		    udt_provider_load(p)) {
			CHECK(!"a cycle failed");
			udt_provider_free(p);
			break;
		}
		udt_probe_fire(pr, "s", (int16_t)c, 1.5);
		udt_provider_free(p);
	}
	CHECK_EQ(count_fds(), fds);
	CHECK_EQ(count_maps("udtrace:cyc"), 0);
	CHECK(!find_table("cyc"));
	CHECK(udt__registry.cnt - reg_before <= 1); /* zeroed slots are taken again */
}

TEST(sdt_set_registered)
{
	const struct udt_table_hdr *t = find_table("unit");

	REQUIRE(t);
	REQUIRE_EQ(t->probe_cnt, 2);
	for (uint32_t i = 0; i < 2; i++) {
		const struct udt_table_probe *p = tprobe(t, i);

		if (!strcmp(tstr(t, p->name), "two")) {
			CHECK_EQ(p->narg_cnt, 2);
			CHECK_STR(tstr(t, targ(t, p->first_narg)->type), "int");
			CHECK_EQ(targ(t, p->first_narg + 1)->kind, UDT_ARG_PTR);
			CHECK(tsem(t, i) == &udt__sdt_sem_unit___two);
			CHECK_STR(tstr(t, p->module), "");
		} else {
			CHECK_STR(tstr(t, p->name), "xl");
			CHECK_EQ(p->flags, UDT_PROBE_TRANSLATED);
			CHECK_STR(tstr(t, p->module), "mymod");
			CHECK_EQ(p->func_cnt, 1);
			CHECK_STR(tstr(t, targ(t, p->first_xarg)->type), "struct bar *");
			CHECK_EQ(targ(t, p->first_xarg)->kind, UDT_ARG_PTR);
		}
	}
	CHECK(tdispatch(t) == &udt__sdt_provider_unit.dispatch);
	/* fired as a consumer would see it */
	udt__sdt_provider_unit.dispatch = record;
	udt__sdt_sem_unit___two++;
	memset(&got, 0, sizeof(got));
	SDT_PROBE2(unit, , , two, -3, "sdt");
	CHECK_EQ(got.calls, 1);
	CHECK_EQ((int64_t)got.v[0], -3);
	CHECK_STR((const char *)(uintptr_t)got.v[1], "sdt");
	udt__sdt_sem_unit___two--;
	SDT_PROBE2(unit, , , two, -3, "sdt");
	CHECK_EQ(got.calls, 1);
	udt__sdt_provider_unit.dispatch = NULL;
}
