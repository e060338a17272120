/* @target: mem */
/*
 * trace() of a struct of the traced process: its bytes (rtprog's numbers,
 * -8, 200, -1600, 60000, -320000 and 4000000000), copied fault-safe.
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
	trace(*(struct m *)arg0);
}
