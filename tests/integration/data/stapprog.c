/*
 * A program with SystemTap probes and no udtrace in it (tests/integration/
 * notes.sh): stap.d through SystemTap's dtrace -h and -G, and stapprog_lib.c
 * with bare STAP_PROBEn sites. The operands cover registers, constants,
 * memory relative to %rbp and %rip, and sizes 1 to 8, signed and not:
 *
 *	stapprog:::tick(i, acc, i * 3)   semaphore; registers, at -O2
 *	stapprog:::mem(hist[1], i)       semaphore; hist[1] by "8+hist(%rip)"
 *	stapprog:::frame(i, acc, -i, i)  no semaphore; the stack, at -O0
 *	stapprog:::nosem()               no semaphore, no argument
 *
 * Usage: stapprog N [wait]: N rounds, then prints the sum; "wait" first
 * prints "ready" and waits for a line on stdin (the tracer is attached).
 */
#include "stap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

long hist[4];
void frame(int i, long v, short s, signed char c);

__attribute__((noinline)) static void report(int i)
{
	STAPPROG_MEM(hist[1], i);
}

__attribute__((noinline)) static long work(int i, long acc)
{
	if (STAPPROG_TICK_ENABLED())
		STAPPROG_TICK(i, acc, (long)i * 3);
	acc += i;
	hist[1] += 2;
	report(i);
	return acc;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10;
	long acc = 0;

	if (argc > 2 && !strcmp(argv[2], "wait")) {
		char line[16];
		printf("ready\n");
		fflush(stdout);
		if (!fgets(line, sizeof(line), stdin))
			return 1;
	}
	for (int i = 0; i < n; i++) {
		acc = work(i, acc);
		frame(i, acc, (short)-i, (signed char)i);
	}
	printf("sum=%ld hist=%ld\n", acc, hist[1]);
	return 0;
}
