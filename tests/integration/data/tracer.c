/* SPDX-License-Identifier: MIT */
/*
 * A stand-in debugger for tests/integration/inject.sh: `tracer PID` seizes
 * PID's main thread with ptrace (without stopping it), says "seized", and
 * holds it until its standard input closes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char b;

	if (argc < 2 || ptrace(PTRACE_SEIZE, atoi(argv[1]), 0, 0)) {
		perror("tracer: PTRACE_SEIZE");
		return 1;
	}
	printf("seized\n");
	fflush(stdout);
	while (read(0, &b, 1) > 0)
		;
	return 0;
}
