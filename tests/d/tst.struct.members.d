/* @target: mem */
/*
 * Members of a structure of the process through a pointer (->), a struct
 * value (.), pointer indexing, & and pointer differences in elements;
 * %d prints at the size of the member's type, unsigned for an unsigned type,
 * as DTrace does (200 as a uint8_t is 200, as an int8_t -56).
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
	this->m = (struct m *)arg0;
	printf("%d %d %d %d %d %u %d %s\n", this->m->s8, this->m->u8, this->m->s16, this->m->u16,
	    this->m->s32, this->m->u32, this->m->s64, copyinstr(this->m->str));
	printf("%d %d %d\n", (*this->m).s16, ((short *)arg0)[1], *(&this->m->u32));
	printf("%d\n", &this->m->s64 - (int64_t *)arg0);
	printf("%d\n", (char *)&this->m->str - (char *)arg0);
}
