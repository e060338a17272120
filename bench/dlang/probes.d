/* SPDX-License-Identifier: MIT */
/*
 * The provider of the D-language benchmark (bench/dlang.sh): dl:::ev with
 * three integer arguments, as bench/enabled's bench:ev, and dl:::msg with an
 * integer and a string.
 */
provider dl {
	probe ev(long, long, long);
	probe msg(long, const char *);
};
