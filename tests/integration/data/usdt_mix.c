/* SPDX-License-Identifier: MIT */
/*
 * A program of tests/integration/usdt.sh that fires probes both ways, as
 * Oracle's DTrace tests and real builds do: through the header `dtrace -h`
 * made from usdt.d, and through the system's <sys/sdt.h> (SystemTap's
 * DTRACE_PROBEn macros), for a probe the provider declares (usdt:::both, in
 * two functions, one of them beside the header's site) and for a provider
 * it does not (solo:::only). Each line of standard input ("go") fires one
 * round, numbered from 0; "ready" on standard error first.
 */
#include "usdt.h"

#include <stdio.h>
#include <sys/sdt.h>

static __attribute__((noinline)) void other(int i)
{
	DTRACE_PROBE2(usdt, both, 20, i);
	DTRACE_PROBE1(solo, only, i);
}

int main(void)
{
	char line[16];

	fprintf(stderr, "ready\n");
	for (int i = 0; fgets(line, sizeof(line), stdin); i++) {
		USDT_HDR(1, i);
		USDT_BOTH(10, i);
		DTRACE_PROBE2(usdt, both, 11, i);
		other(i);
		printf("round %d\n", i);
		fflush(stdout);
	}
	return 0;
}
