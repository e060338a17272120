/* SPDX-License-Identifier: MIT */
/* The SDT(9) manual's translated ICMP header: FreeBSD's struct icmp to an OS-independent one. */
struct icmp {
	uint8_t icmp_type;
	uint8_t icmp_code;
	uint16_t icmp_cksum;
};

struct icmp_hdr_dt {
	int type;
	int code;
	int checksum;
};

translator struct icmp_hdr_dt < struct icmp *p > {
	type = p->icmp_type;
	code = p->icmp_code;
	checksum = p->icmp_cksum;
};
