/* SPDX-License-Identifier: MIT */
/*
 * A small unit-test harness with no dependencies.
 *
 * TEST(name) { ... } defines a test and registers it in the "udt_tests" ELF
 * section; main() (from HARNESS_MAIN, defined in exactly one file of each test
 * binary) walks the section through the linker's __start_/__stop_ symbols.
 * CHECK_* print file:line, the expression and both values, mark the test
 * failed and go on; REQUIRE_* also leave the test. SKIP("why") ends a test as
 * skipped. TEST_FILTER=substring runs only matching tests.
 *
 * Each binary ends with the machine line "#counts <passed> <failed> <skipped>",
 * which tests/run.sh sums; it never prints the suite's summary itself.
 */
#ifndef UDT_TESTS_HARNESS_H
#define UDT_TESTS_HARNESS_H

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct udt_test {
	const char *name;
	void (*fn)(void);
};

struct udt_test_state {
	bool failed;
	bool skipped;
	const char *skip_reason;
};

extern struct udt_test_state udt_test_state;

#define TEST(tname)                                                                          \
	static void test_##tname(void);                                                      \
	static const struct udt_test udt_test_rec_##tname                                    \
		__attribute__((used, section("udt_tests"), aligned(sizeof(void *)))) = {     \
			#tname, test_##tname                                                 \
		};                                                                           \
	static void test_##tname(void)

#define UDT__FAIL(...)                                                                       \
	do {                                                                                 \
		fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);                              \
		fprintf(stderr, __VA_ARGS__);                                                \
		fputc('\n', stderr);                                                         \
		udt_test_state.failed = true;                                                \
	} while (0)

#define CHECK(cond)                                                                          \
	({                                                                                   \
		bool udt__ok = (cond);                                                       \
		if (!udt__ok)                                                                \
			UDT__FAIL("CHECK(%s) failed", #cond);                                \
		udt__ok;                                                                     \
	})

#define CHECK_EQ(a, b)                                                                       \
	({                                                                                   \
		intmax_t udt__a = (intmax_t)(a), udt__b = (intmax_t)(b);                     \
		bool udt__ok = udt__a == udt__b;                                             \
		if (!udt__ok)                                                                \
			UDT__FAIL("CHECK_EQ(%s, %s): %jd != %jd", #a, #b, udt__a, udt__b);   \
		udt__ok;                                                                     \
	})

#define CHECK_NE(a, b)                                                                       \
	({                                                                                   \
		intmax_t udt__a = (intmax_t)(a), udt__b = (intmax_t)(b);                     \
		bool udt__ok = udt__a != udt__b;                                             \
		if (!udt__ok)                                                                \
			UDT__FAIL("CHECK_NE(%s, %s): both %jd", #a, #b, udt__a);             \
		udt__ok;                                                                     \
	})

#define CHECK_STR(a, b)                                                                      \
	({                                                                                   \
		const char *udt__a = (a), *udt__b = (b);                                     \
		bool udt__ok = udt__a && udt__b && !strcmp(udt__a, udt__b);                  \
		if (!udt__ok)                                                                \
			UDT__FAIL("CHECK_STR(%s, %s):\n  got:      \"%s\"\n  expected: \"%s\"",  \
				  #a, #b, udt__a ? udt__a : "(null)", udt__b ? udt__b : "(null)"); \
		udt__ok;                                                                     \
	})

/* A string containing a substring. */
#define CHECK_CONTAINS(hay, needle)                                                          \
	({                                                                                   \
		const char *udt__h = (hay), *udt__n = (needle);                              \
		bool udt__ok = udt__h && udt__n && strstr(udt__h, udt__n);                   \
		if (!udt__ok)                                                                \
			UDT__FAIL("CHECK_CONTAINS(%s, %s):\n  in:      \"%s\"\n  missing: \"%s\"", \
				  #hay, #needle, udt__h ? udt__h : "(null)", udt__n);        \
		udt__ok;                                                                     \
	})

/* Return codes: 0 (or >= 0) is success, negative is an error. */
#define CHECK_OK(expr)                                                                       \
	({                                                                                   \
		intmax_t udt__r = (intmax_t)(expr);                                          \
		bool udt__ok = udt__r >= 0;                                                  \
		if (!udt__ok)                                                                \
			UDT__FAIL("CHECK_OK(%s): returned %jd", #expr, udt__r);              \
		udt__ok;                                                                     \
	})

#define CHECK_ERR(expr)                                                                      \
	({                                                                                   \
		intmax_t udt__r = (intmax_t)(expr);                                          \
		bool udt__ok = udt__r < 0;                                                   \
		if (!udt__ok)                                                                \
			UDT__FAIL("CHECK_ERR(%s): returned %jd, expected an error", #expr,   \
				  udt__r);                                                   \
		udt__ok;                                                                     \
	})

#define REQUIRE(cond)                                                                        \
	do {                                                                                 \
		if (!CHECK(cond))                                                            \
			return;                                                              \
	} while (0)
#define REQUIRE_EQ(a, b)                                                                     \
	do {                                                                                 \
		if (!CHECK_EQ(a, b))                                                         \
			return;                                                              \
	} while (0)
#define REQUIRE_STR(a, b)                                                                    \
	do {                                                                                 \
		if (!CHECK_STR(a, b))                                                        \
			return;                                                              \
	} while (0)
#define REQUIRE_OK(expr)                                                                     \
	do {                                                                                 \
		if (!CHECK_OK(expr))                                                         \
			return;                                                              \
	} while (0)

#define SKIP(reason)                                                                         \
	do {                                                                                 \
		udt_test_state.skipped = true;                                               \
		udt_test_state.skip_reason = (reason);                                       \
		return;                                                                      \
	} while (0)

#ifdef HARNESS_MAIN
struct udt_test_state udt_test_state;

extern const struct udt_test __start_udt_tests[] __attribute__((weak));
extern const struct udt_test __stop_udt_tests[] __attribute__((weak));

int main(void)
{
	const char *filter = getenv("TEST_FILTER");
	int passed = 0, failed = 0, skipped = 0;

	for (const struct udt_test *t = __start_udt_tests; t < __stop_udt_tests; t++) {
		if (filter && *filter && !strstr(t->name, filter))
			continue;
		memset(&udt_test_state, 0, sizeof(udt_test_state));
		t->fn();
		if (udt_test_state.failed) {
			printf("FAIL %s\n", t->name);
			failed++;
		} else if (udt_test_state.skipped) {
			printf("SKIP %s: %s\n", t->name, udt_test_state.skip_reason);
			skipped++;
		} else {
			printf("ok   %s\n", t->name);
			passed++;
		}
		fflush(stdout);
	}
	printf("#counts %d %d %d\n", passed, failed, skipped);
	return failed ? 1 : 0;
}
#endif

#endif /* UDT_TESTS_HARNESS_H */
