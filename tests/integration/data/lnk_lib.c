/* A shared library with a probe site. */
#include "lnk.h"

int lib_work(int n);
int lib_work(int n)
{
	LNK_HIT(n, "library");
	return n + 1;
}
