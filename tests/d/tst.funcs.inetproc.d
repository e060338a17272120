/* @target: mem */
/*
 * inet_ntoa(), inet_ntoa6() and link_ntop() of addresses in the traced
 * process's memory, read where they are: rtprog's struct of numbers, whose
 * u32 (4000000000, 0xee6b2800) is the bytes 00 28 6b ee, and whose first 16
 * bytes are f8 c8 c0 f9 60 ea 00 00 00 1e fb ff 00 28 6b ee.
 */
#pragma D option quiet

struct m {
	int8_t s8;
	uint8_t u8;
	int16_t s16;
	uint16_t u16;
	int32_t s32;
	uint32_t u32;
};

rt$target:::mem
{
	printf("%s\n", inet_ntoa((ipaddr_t *)&((struct m *)arg0)->u32));
	printf("%s\n", inet_ntoa6((struct in6_addr *)arg0));
	printf("%s\n", inet_ntop(AF_INET6, (void *)arg0));
	printf("%s\n", link_ntop(ARPHRD_ETHER, (void *)arg0));
}
