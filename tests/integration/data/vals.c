/* Fires the vals probes with known values; prints the pointers it passed. */
#include <limits.h>
#include <stdio.h>
#include "vals.h"

static volatile char c = CHAR_MIN;
static volatile signed char sc = -1;
static volatile unsigned char uc = UCHAR_MAX;
static volatile short s = SHRT_MIN;
static volatile unsigned short us = USHRT_MAX;
static volatile int i = INT_MIN;
static volatile unsigned int ui = UINT_MAX;
static volatile long l = LONG_MIN;
static volatile unsigned long ul = ULONG_MAX;
static volatile long long ll = -2;
static volatile unsigned long long ull = 0x8000000000000001ull;
static volatile _Bool b = 1;

__attribute__((noinline)) static void fire(int *ip)
{
	VALS_INTS(c, sc, uc, s, us, i, ui, l, ul, ll, ull, b);
	VALS_PTRS("hello, probe", (void *)ip, ip, "second string");
	VALS_CONSTS(-7, 4000000000u, -1234567890123L, 'x');
	VALS_NONE();
}

int main(void)
{
	int x = 42;

	printf("ip=%p\n", (void *)&x);
	printf("enabled=%d\n", VALS_CONSTS_ENABLED() != 0);
	fflush(stdout);
	fire(&x);
	return 0;
}
