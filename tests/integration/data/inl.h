/* An inline function with a probe site, included by two C++ translation units. */
#include "lnk.h"
inline int inl_hit(int n)
{
	LNK_HIT(n, "inline");
	return n * 2;
}
