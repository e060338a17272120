/* Argument checks: each BAD_n is one mistake the header must turn into a compile error. */
#include "tst.basic.h"
#include "tst.types.h"

struct other;
struct node;

int main(int argc, char **argv)
{
	(void)argv;
#if BAD == 1
	BASIC_START(argv, 1ull, "x", 0);        /* pointer where int is declared */
#elif BAD == 2
	BASIC_START(argc, 1ull, argc, 0);       /* int where const char * is declared */
#elif BAD == 3
	int x = 0;
	TYPES_STRS("s", argv, &x, 0);           /* int * where struct node * is declared */
#elif BAD == 4
	TYPES_IDS(1u, 2u, 3u, 4);               /* too few arguments */
#elif BAD == 5
	BASIC_START(argc, 1ull, (uintptr_t)"x", 0); /* an integer where a pointer is declared */
#else
	BASIC_START(argc, 1ull, "x", 0);
#endif
	return 0;
}
