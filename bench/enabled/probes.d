/* SPDX-License-Identifier: MIT */
/*
 * The provider of the enabled-probe benchmark: one probe with three integer
 * arguments, fired in a loop by ev.c (its udtrace build).
 */
provider bench {
	probe ev(long, long, long);
};
