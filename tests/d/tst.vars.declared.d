/*
 * Variable declarations: global, self-> and this-> integers and strings,
 * of the declared types (a char stays a char), before any assignment.
 */
#pragma D option quiet

int g;
char c;
string name;
self int count;
self string who;
this int64_t big;
this string tmp;

BEGIN
{
	printf("%d %d [%s] %d %d\n", g, c, name, self->count, self->who == NULL);
	c = 300;
	name = "declared";
	self->count += 2;
	self->who = name;
	this->big = 1LL << 40;
	this->tmp = self->who;
	printf("%d %s %d %s %d %s\n", c, name, self->count, self->who, this->big, this->tmp);
	exit(0);
}
