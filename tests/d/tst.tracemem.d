/* @target: mem */
/*
 * tracemem(addr, size) copies size bytes of the process into the record,
 * and dtrace prints them as DTrace does: a newline, a heading of offsets
 * within a row, then rows of 16 bytes with their offset, in hex and as
 * characters ('.' for what is not printable). The structure of mem mode
 * begins with int8_t -8, uint8_t 200, int16_t -1600, uint16_t 60000, two
 * bytes of padding, int32_t -320000, uint32_t 4000000000 and int64_t
 * -6400000000000, little-endian; its string is "a string". A third
 * argument prints that many of the bytes at most.
 */
#pragma D option quiet

struct m {
	int8_t s8;
	uint8_t u8;
	int16_t s16;
	uint16_t u16;
	int32_t s32;
	uint32_t u32;
	int64_t s64;
	char *str;
};

rt$target:::mem
{
	tracemem(arg0, 16);
	tracemem(((struct m *)arg0)->str, 9);
	tracemem(arg0, 24, 20);
	tracemem(arg0, 24, 4);
}
