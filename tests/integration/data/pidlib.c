/* SPDX-License-Identifier: MIT */
/*
 * A library that pidfn dlopen()s while it is traced (tests/integration/
 * pid.sh): the pid provider's probes of a library loaded later.
 */
int plug_calls;

__attribute__((noinline)) int plug_work(int x)
{
	plug_calls++;
	return x * 3 + 1;
}

__attribute__((noinline)) int plug_other(int x)
{
	return plug_work(x) + 1;
}
