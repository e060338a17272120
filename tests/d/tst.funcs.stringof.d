/* @target: mem */
/*
 * stringof(): a string as it is, a pointer or an integer as the address of
 * a string of the process (copied when the probe fires, fault-safe).
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
	printf("[%s] [%s] [%s]\n", stringof("const"), stringof(this->m->str),
	    stringof((uintptr_t)this->m->str));
	self->x = stringof(this->m->str);
	printf("[%s] %d\n", self->x, stringof(this->m->str) == "a string");
}
