/*
 * htons(), htonl(), htonll() and their inverses ntohs(), ntohl(), ntohll():
 * network byte order is big-endian (illumos's funcs/tst.hton.d), here on a
 * little-endian machine; of constants (folded) and of variables (at fire
 * time).
 */
#pragma D option quiet

BEGIN
{
	printf("%x %x %x\n", htons(0x1122), htonl(0x11223344), htonll(0x1122334455667788));
	printf("%x %x %x\n", ntohs(0x1122), ntohl(0x11223344), ntohll(0x1122334455667788));
	s = 0x1122;
	l = 0x11223344;
	ll = 0x1122334455667788;
	printf("%x %x %x\n", htons(s), htonl(l), htonll(ll));
	printf("%x %x %x\n", ntohs(s), ntohl(l), ntohll(ll));
	/* each gives its type: htons() a uint16_t, whatever it was given */
	printf("%d %d %d\n", sizeof (htons(s)), sizeof (htonl(s)), sizeof (htonll(s)));
	printf("%d\n", ntohl(htonl(l)) == l);
	exit(0);
}
