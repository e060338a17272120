/*
 * Assignment operators, ++ and -- (prefix gives the new value, postfix the
 * old), and a variable keeping the type of its first assignment.
 */
#pragma D option quiet

BEGIN
{
	self->a = 10;
	self->a += 5;
	self->a -= 3;
	self->a *= 4;
	self->a /= 3;
	self->a %= 7;
	printf("a %d\n", self->a);
	self->b = 1;
	self->b <<= 10;
	self->b |= 3;
	self->b &= 0x401;
	self->b ^= 0x400;
	self->b >>= 0;
	printf("b %d\n", self->b);
	printf("pre %d post %d now %d\n", ++self->b, self->b++, self->b);
	printf("pre %d post %d now %d\n", --self->b, self->b--, self->b);
	self->c = (char)1;
	self->c = 300;
	printf("c %d\n", self->c);
	self->u = (unsigned char)255;
	self->u++;
	printf("u %d\n", self->u);
	exit(0);
}
