/*
 * SPDX-License-Identifier: MIT
 *
 * Connection information for network protocol providers, as DTrace's net.d
 * defines it: the first translated argument of their probes (http's, for
 * one), so that scripts read every protocol's connections the same way.
 *
 * And the types and constants of inet_ntoa(), inet_ntoa6(), inet_ntop() and
 * link_ntop() (docs/d-language.md, "Subroutines"): the addresses as Linux
 * lays them out (struct in6_addr's members are the kernel's, as Oracle's
 * DTrace reads them), Linux's address families and hardware types.
 */

typedef uint32_t ipaddr_t;              /* an IPv4 address, in network order */
typedef uint32_t in_addr_t;
struct in_addr {
	in_addr_t s_addr;
};
struct in6_addr {
	union {
		uint8_t u6_addr8[16];
		uint16_t u6_addr16[8];
		uint32_t u6_addr32[4];
	} in6_u;
};
typedef struct in6_addr in6_addr_t;

inline int AF_INET = 2;                 /* inet_ntop()'s address families */
#pragma D binding "1.0" AF_INET
inline int AF_INET6 = 10;
#pragma D binding "1.0" AF_INET6
inline int ARPHRD_ETHER = 1;            /* link_ntop()'s hardware types: 6 bytes */
#pragma D binding "1.0" ARPHRD_ETHER
inline int ARPHRD_INFINIBAND = 32;      /* 20 bytes */
#pragma D binding "1.0" ARPHRD_INFINIBAND

typedef struct conninfo {
	string ci_local;        /* the local host's address */
	string ci_remote;       /* the remote host's address */
	string ci_protocol;     /* "ipv4", "ipv6" */
} conninfo_t;
