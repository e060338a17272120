/* SPDX-License-Identifier: MIT */
/*
 * The provider of the disabled-probe benchmark: one probe with three
 * arguments, given to both our dtrace and SystemTap's.
 */
provider bench {
	probe site(int, const char *, long);
};
