/* @target: mem */
/* %d takes an integer, not a double of the process. */
struct m {
	int8_t s8;
	uint8_t u8;
	int16_t s16;
	uint16_t u16;
	int32_t s32;
	uint32_t u32;
	int64_t s64;
	char *str;
	float f;
	double d;
};

rt$target:::mem
{
	printf("%d\n", ((struct m *)arg0)->d);
}
