/*
 * A C++ program that throws a known number of exceptions, from a known
 * function (tests/integration/notes.sh: libstdc++'s libstdcxx probes).
 *
 * Usage: throw N [wait]: throws N std::runtime_error from thrower() and
 * catches them in main(), rethrowing every fifth once; prints the counts.
 * "wait" first prints "ready" and waits for a line on stdin.
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

__attribute__((noinline)) void thrower(int i)
{
	throw std::runtime_error(i % 2 ? "odd" : "even");
}

__attribute__((noinline)) static void relay(int i)
{
	try {
		thrower(i);
	} catch (...) {
		if (i % 5 == 0)
			throw;
	}
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10, caught = 0, relayed = 0;

	if (argc > 2 && !strcmp(argv[2], "wait")) {
		char line[16];
		printf("ready\n");
		fflush(stdout);
		if (!fgets(line, sizeof(line), stdin))
			return 1;
	}
	for (int i = 0; i < n; i++) {
		try {
			relay(i);
		} catch (const std::exception &) {
			relayed++;
		}
		caught++;
	}
	printf("thrown=%d rethrown=%d\n", caught, relayed);
	return 0;
}
