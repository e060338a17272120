/* stapprog.c's probes without a semaphore, built at -O0: operands on the stack. */
#include <sys/sdt.h>

void frame(int i, long v, short s, signed char c);

void frame(int i, long v, short s, signed char c)
{
	STAP_PROBE4(stapprog, frame, i, v, s, c);
	STAP_PROBE(stapprog, nosem);
}
