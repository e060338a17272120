/* SPDX-License-Identifier: MIT */
/*
 * The provider of the enabled-probe benchmark: a probe with three integer
 * arguments, and one with an integer and a string, fired in a loop by ev.c
 * (its udtrace builds).
 */
provider bench {
	probe ev(long, long, long);
	probe evs(long, char *);
};
