/* SPDX-License-Identifier: MIT */
/* A second provider linked into the executable: its section holds two tables. */
provider pextra {
	probe tick(long n);
};
