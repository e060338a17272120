/* @target: mem */
/*
 * typedef in a script: names for integer, pointer and structure types,
 * used in declarations, casts, sizeof and associative arrays' keys.
 */
#pragma D option quiet

typedef unsigned char byte_t;
typedef long counter_t;
typedef struct m {
	int8_t s8;
	uint8_t u8;
	int16_t s16;
	uint16_t u16;
	int32_t s32;
	uint32_t u32;
	int64_t s64;
	char *str;
} m_t;
typedef m_t *mp_t;

counter_t total;
byte_t seen[string];

rt$target:::mem
{
	this->m = (mp_t)arg0;
	total += this->m->s64 / 1000000;
	seen[copyinstr((uintptr_t)this->m->str)] = (byte_t)513;
	printf("%d %d %d %d\n", sizeof(byte_t), sizeof(m_t), total, seen["a string"]);
}
