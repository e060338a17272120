/* strlen() of constants, variables, results and strings of the process (@target). */
/* @target: mem */
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

BEGIN
{
	s = "hello";
	printf("%d %d %d %d\n", strlen(""), strlen("x"), strlen(s), strlen(strjoin(s, s)));
}

rt$target:::mem
{
	this->m = (struct m *)arg0;
	printf("%d %d\n", strlen(copyinstr((uintptr_t)this->m->str)), strlen(this->m->str));
}
