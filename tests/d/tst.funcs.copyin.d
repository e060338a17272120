/* @target: mem */
/*
 * copyin(): a copy of the process's memory in the scratch space, read
 * through a pointer of the right type; copyinto() into alloca()'s memory.
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
	this->m = (struct m *)copyin(arg0, sizeof(struct m));
	printf("%d %d %d %d %d %u %d\n", this->m->s8, this->m->u8, this->m->s16, this->m->u16,
	    this->m->s32, this->m->u32, this->m->s64);
	this->buf = (struct m *)alloca(sizeof(struct m));
	copyinto(arg0, sizeof(struct m), this->buf);
	printf("%d %s\n", this->buf->s64, copyinstr((uintptr_t)this->buf->str));
	this->p = (int64_t *)copyin(arg0 + 16, 8);
	printf("%d\n", *this->p);
}
