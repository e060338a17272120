/*
 * A C++ program that throws a known number of exceptions, from a known
 * function (tests/integration/notes.sh: libstdc++'s libstdcxx probes).
 *
 * Usage: throw N [wait]: throws N std::runtime_error from thrower() and
 * catches them in relay(), rethrowing every fifth to main(); prints the
 * counts. "wait" prints "ready" and waits for a line on stdin before, and
 * "done" and waits for another after.
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

/* Wait for a line on stdin: the tracer did what it does at this point. */
static void pause_here(const char *say)
{
	char line[16];

	printf("%s\n", say);
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		exit(1);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10, caught = 0, relayed = 0;
	bool wait = argc > 2 && !strcmp(argv[2], "wait");

	if (wait)
		pause_here("ready");
	for (int i = 0; i < n; i++) {
		try {
			relay(i);
		} catch (const std::exception &) {
			relayed++;
		}
		caught++;
	}
	printf("thrown=%d rethrown=%d\n", caught, relayed);
	if (wait)
		pause_here("done");
	return 0;
}
