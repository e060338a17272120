/* SPDX-License-Identifier: MIT */
/*
 * The SDT(9) manual's examples as a user-space program: icmp:::receive-
 * unreachable, and ip:::receive with two sites (IPv4 and IPv6), plus a probe
 * of every arity with a module and a function named, for the listing.
 * `sdt_ip N` receives N packets of each kind and prints "done"; `sdt_ip loop`
 * receives one of each every 10 ms until its standard input closes.
 * Compiled as C and as C++ (tests/integration/sdt.sh, tests/compile/).
 */
#include <udtrace/sdt.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <unistd.h>

struct ifnet {
	char if_xname[16];
	int if_index;
};
struct ip {
	unsigned char ip_vhl;
	unsigned char ip_tos;
	unsigned short ip_len;
};
struct ip6_hdr {
	unsigned int ip6_flow;
	unsigned short ip6_plen;
};
struct icmp {
	unsigned char icmp_type;
	unsigned char icmp_code;
	unsigned short icmp_cksum;
};
struct mbuf {
	struct ifnet *rcvif;
	unsigned char data[64];
};

SDT_PROVIDER_DEFINE(icmp);
SDT_PROVIDER_DEFINE(ip);
SDT_PROVIDER_DECLARE(ip);

SDT_PROBE_DEFINE1(icmp, , , receive__unreachable, "struct icmp *");
SDT_PROBE_DEFINE3(ip, , , receive, "struct ifnet *", "struct ip *", "struct ip6_hdr *");
SDT_PROBE_DEFINE(ip, , , untyped);
SDT_PROBE_DEFINE0(ip, , , none);
SDT_PROBE_DEFINE7(ip, kmod, ip_stats, seven, "int", "unsigned int", "long long", "short",
		  "unsigned char", "char *", "uint64_t");

#ifdef __cplusplus
#define PTR(T, x) reinterpret_cast<T>(x)

#define LONG(x) static_cast<long>(x)
#else
#define PTR(T, x) ((T)(x))

#define LONG(x) ((long)(x))
#endif

static int ip_input(struct mbuf *m)
{
	struct ip *ip = PTR(struct ip *, m->data);

	SDT_PROBE3(ip, , , receive, m->rcvif, ip, NULL);
	return ip->ip_len;
}

static int ip6_input(struct mbuf *m)
{
	struct ip6_hdr *ip6 = PTR(struct ip6_hdr *, m->data);

	SDT_PROBE3(ip, , , receive, m->rcvif, NULL, ip6);
	return ip6->ip6_plen;
}

static void icmp_input(struct icmp *icp)
{
	if (icp->icmp_type == 3)
		SDT_PROBE1(icmp, , , receive__unreachable, icp);
}

int main(int argc, char **argv)
{
	int loop = argc > 1 && !strcmp(argv[1], "loop");
	int n = argc > 1 ? atoi(argv[1]) : 1;
	struct ifnet ifp;
	struct mbuf m4, m6;
	struct icmp ic;
	long total = 0;

	memset(&ifp, 0, sizeof(ifp));
	strcpy(ifp.if_xname, "em0");
	ifp.if_index = 2;
	memset(&m4, 0, sizeof(m4));
	memset(&m6, 0, sizeof(m6));
	m4.rcvif = m6.rcvif = &ifp;
	PTR(struct ip *, m4.data)->ip_vhl = 0x45;
	PTR(struct ip *, m4.data)->ip_len = 84;
	PTR(struct ip6_hdr *, m6.data)->ip6_flow = 0x60000000u;
	PTR(struct ip6_hdr *, m6.data)->ip6_plen = 40;
	ic.icmp_type = 3;
	ic.icmp_code = 1;
	ic.icmp_cksum = 0;
	fprintf(stderr, "ready %ld\n", LONG(getpid()));
	for (int i = 0; loop || i < n; i++) {
		if (loop) {
			struct pollfd pfd = { 0, POLLIN, 0 };
			char b;

			if (poll(&pfd, 1, 10) > 0 && read(0, &b, 1) <= 0)
				break;
		}
		total += ip_input(&m4);
		total += ip6_input(&m6);
		icmp_input(&ic);
		SDT_PROBE0(ip, , , none);
		SDT_PROBE2(ip, , , untyped, i, -i);
		SDT_PROBE7(ip, kmod, ip_stats, seven, -1, 4000000000u, -1234567890123ll, -2, 255,
			   "str", 18446744073709551615ull);
	}
	printf("done %ld\n", total);
	return 0;
}
