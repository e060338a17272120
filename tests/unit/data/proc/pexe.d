/* SPDX-License-Identifier: MIT */
/* The executable's main provider for tests/unit/test_proc.c. */
provider pexe {
	probe start(int n);
	probe two__words(const char *s);
};
