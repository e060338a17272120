#include "inl.h"
int tu1(int n);
int main(int argc, char **) { return tu1(argc) + inl_hit(argc) == 4 ? 0 : 1; }
