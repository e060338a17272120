#include "inl.h"
int tu1(int n);
int tu1(int n) { return inl_hit(n); }
