/*
 * The D suite's library: the real layout of rtprog's mem-mode structure and
 * the translator of rt:::info (tests/integration/data/rt.d), as a provider
 * support file would give them. tests/d/run.sh passes -L with this
 * directory to the scripts that ask for it.
 */
#pragma D depends_on library rtbase.d

typedef struct rtmem {
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
} rtmem_t;

typedef struct rtinfo {
	int small;
	int64_t big;
	string text;
	rt_width_t width;
} rtinfo_t;

#pragma D binding "1.0" rtinfo
translator rtinfo_t <rtmem_t *M> {
	small = M->s16;
	big = M->s64 / 1000;
	text = copyinstr((uintptr_t)M->str);
	width = sizeof(M->u32) * RT_BITS;
};
