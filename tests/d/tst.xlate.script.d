/* @target: mem */
/* xlate<>() with a translator of the script, through a pointer and by value. */
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

typedef struct view {
	int sum;
	string what;
	char first;
} view_t;

translator view_t <struct m *P> {
	sum = P->s8 + P->s16;
	what = copyinstr((uintptr_t)P->str);
	first = *P->str;
};

rt$target:::mem
{
	printf("%d %s %c\n", xlate<view_t *>((struct m *)arg0)->sum,
	    xlate<view_t *>((struct m *)arg0)->what, xlate<view_t>((struct m *)arg0).first);
}
