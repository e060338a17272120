/* SPDX-License-Identifier: MIT */
/* The shared library's provider for tests/unit/test_proc.c. */
provider plib {
	probe fire(int n);
};
