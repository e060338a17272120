/*
 * inet_ntoa(), inet_ntoa6(), inet_ntop() and link_ntop() of addresses in
 * alloca()'s memory and in variables, as DTrace writes them: IPv6 zero runs
 * as illumos compresses them (the longest as its byte scan
 * counts, a single zero group too, never a last lone zero group), IPv4-mapped and -compatible addresses as a
 * dotted quad alone (inet_ntoa6()) or after the IPv6 part (inet_ntop(),
 * inet_ntoa6(p, 1)); the types and constants of the D library's net.d.
 */
#pragma D option quiet

uint8_t hw[20];

BEGIN
{
	printf("%d %d %d %d %d\n", sizeof(ipaddr_t), sizeof(struct in_addr),
	    sizeof(in6_addr_t), AF_INET, AF_INET6);
	this->ip = (ipaddr_t *)alloca(sizeof(ipaddr_t));
	*this->ip = htonl(0xc0a80117);
	printf("%s %s\n", inet_ntoa(this->ip), inet_ntop(AF_INET, this->ip));
	this->in = (struct in_addr *)this->ip;
	this->in->s_addr = htonl(0x0a00ff01);
	printf("%s\n", inet_ntoa(&this->in->s_addr));

	this->p = (struct in6_addr *)alloca(sizeof(struct in6_addr));
	printf("[%s]\n", inet_ntoa6(this->p));
	this->p->in6_u.u6_addr8[15] = 1;
	printf("[%s]\n", inet_ntoa6(this->p));
	/* ::7f00:1, compatible; then ::ffff:7f00:1, mapped; then ::fffe:7f00:1, neither */
	this->p->in6_u.u6_addr8[12] = 0x7f;
	printf("%s %s %s\n", inet_ntoa6(this->p), inet_ntoa6(this->p, 1), inet_ntop(AF_INET6, this->p));
	this->p->in6_u.u6_addr16[5] = 0xffff;
	printf("%s %s %s\n", inet_ntoa6(this->p), inet_ntoa6(this->p, 0), inet_ntop(AF_INET6, this->p));
	this->p->in6_u.u6_addr8[11] = 0xfe;
	printf("%s %s\n", inet_ntoa6(this->p), inet_ntop(AF_INET6, this->p));

	/* 2001:db8:0:0:1:0:0:1: two runs of two groups; illumos's scan counts the
	   zero bytes up to the next that is not one ("0:1" adds one) and takes the
	   second, as a longer one */
	this->p->in6_u.u6_addr32[0] = htonl(0x20010db8);
	this->p->in6_u.u6_addr32[1] = 0;
	this->p->in6_u.u6_addr32[2] = htonl(0x00010000);
	this->p->in6_u.u6_addr32[3] = htonl(0x00000001);
	printf("%s\n", inet_ntoa6(this->p));
	/* 2001:db8:0:1:0:0:0:1: the longer run */
	this->p->in6_u.u6_addr32[1] = htonl(0x00000001);
	this->p->in6_u.u6_addr32[2] = 0;
	printf("%s\n", inet_ntoa6(this->p));
	/* 2001:db8:1:0:1:1:1:1: one zero group; 2001:db8:1:1:1:1:1:0: a last one, kept */
	this->p->in6_u.u6_addr32[1] = htonl(0x00010000);
	this->p->in6_u.u6_addr32[2] = htonl(0x00010001);
	this->p->in6_u.u6_addr32[3] = htonl(0x00010001);
	printf("%s\n", inet_ntoa6(this->p));
	this->p->in6_u.u6_addr32[1] = htonl(0x00010001);
	this->p->in6_u.u6_addr32[3] = htonl(0x00010000);
	printf("%s\n", inet_ntoa6(this->p));
	/* fe80::, the run at the end */
	this->p->in6_u.u6_addr32[0] = htonl(0xfe800000);
	this->p->in6_u.u6_addr32[1] = this->p->in6_u.u6_addr32[2] = this->p->in6_u.u6_addr32[3] = 0;
	printf("%s\n", inet_ntoa6(this->p));

	/* the family known at fire time only */
	af = AF_INET;
	printf("%s\n", inet_ntop(af, this->ip));
	af = AF_INET6;
	printf("%s\n", inet_ntop(af, this->p));

	hw[0] = 0x02; hw[1] = 0x08; hw[2] = 0x20; hw[3] = 0xac; hw[4] = 0x04; hw[5] = 0x0e;
	hw[19] = 0xcd;
	printf("%s\n", link_ntop(ARPHRD_ETHER, hw));
	printf("%s\n", link_ntop(ARPHRD_INFINIBAND, hw));
	exit(0);
}
