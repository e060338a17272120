/* @target: mem */
/*
 * printf()'s %e %f %g %E %G of a float and a double read from the process
 * (D's own values are integers, which these conversions refuse): C's
 * conversions of the value, a float passed as a double as in C, with
 * widths, precisions and flags. trace() of a float records its 4 bytes and
 * prints them as DTrace prints any 4 bytes: an integer.
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
	float f;
	double d;
};

rt$target:::mem
{
	this->m = (struct m *)arg0;
	printf("%f %e %g\n", this->m->f, this->m->f, this->m->f);
	printf("%f %e %E %g %G\n", this->m->d, this->m->d, this->m->d, this->m->d, this->m->d);
	printf("[%10.2f] [%-12.2e] [%+g] [%08.1f]\n", this->m->d, this->m->f, this->m->f,
	    this->m->d);
	trace(this->m->f);
	printf("\n");
}
