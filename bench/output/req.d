/* SPDX-License-Identifier: MIT */
/* bench/output.sh's probe: a request, its number and its URI. */
provider obench {
	probe req(long n, const char *uri);
};
