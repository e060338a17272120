/* SPDX-License-Identifier: MIT */
/*
 * An SDT(9) provider in a shared library (built with -DSDT_LIB as libsdt.so)
 * and a program that calls it (without): the probes' module is the
 * library's name, and the library's set and dispatch pointer are its own.
 */
#include <udtrace/sdt.h>

#include <stdio.h>

#ifdef SDT_LIB
SDT_PROVIDER_DEFINE(lib);
SDT_PROBE_DEFINE2(lib, , , call, "int", "const char *");

void lib_call(int i, const char *s);
void lib_call(int i, const char *s)
{
	SDT_PROBE2(lib, , , call, i, s);
}
#else
void lib_call(int i, const char *s);

int main(void)
{
	lib_call(42, "from main");
	printf("done\n");
	return 0;
}
#endif
