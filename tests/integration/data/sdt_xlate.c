/* SPDX-License-Identifier: MIT */
/*
 * The SDT(9) manual's dynamically-translated probe, as the manual writes it:
 * ip:::receive's argument is a FreeBSD struct icmp *, which D sees as an
 * OS-independent struct icmp_hdr_dt * through a translator of the consumer's
 * library (sdt-lib/icmp.d). `sdt_xlate N` receives N ICMP headers, of types
 * 0 to N-1.
 */
#include <udtrace/sdt.h>

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

struct icmp {
	unsigned char icmp_type;
	unsigned char icmp_code;
	unsigned short icmp_cksum;
};

SDT_PROVIDER_DEFINE(ip);

SDT_PROBE_DEFINE1_XLATE(ip, , , receive, "struct icmp *",
    "struct icmp_hdr_dt *");

static void icmp_input(struct icmp *icp)
{
	SDT_PROBE1(ip, , , receive, icp);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;

	for (int i = 0; i < n; i++) {
		struct icmp ic = { (unsigned char)i, (unsigned char)(i + 10), 0xbeef };

		icmp_input(&ic);
	}
	printf("done\n");
	return 0;
}
