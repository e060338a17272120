/* @target: mem */
/*
 * copyinstr() with and without its length (a bound, the string cut there),
 * as a value kept in a variable, passed to subroutines, and as a key.
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
	this->str = (uintptr_t)((struct m *)arg0)->str;
	self->s = copyinstr(this->str);
	self->three = copyinstr(this->str, 3);
	this->n = 5;
	printf("[%s] [%s] [%s] [%s]\n", self->s, self->three, copyinstr(this->str, 1),
	    copyinstr(this->str, this->n));
	printf("[%s] %d\n", toupper(copyinstr(this->str, 4)), strlen(copyinstr(this->str, 100)));
	@[copyinstr(this->str, 6)] = count();
}
