/*
 * Variables of struct and union types, in every scope: globals, this->
 * and self-> ones, declared or made by their first assignment, nested
 * members assigned one by one, and whole structures assigned (copied) from
 * one to another (the idea of Oracle's struct/tst.global_local_struct.d).
 */
#pragma D option quiet

struct coords {
	int x, y;
};

struct particle {
	struct coords position;
	struct coords velocity;
	char name[8];
};

union word {
	uint32_t u;
	uint8_t b[4];
};

struct coords P, Q;
this struct coords p;
struct particle A;
self struct particle s;
union word W;

BEGIN
{
	P.x = 11;
	P.y = 12;
	this->p.x = 13;
	this->p.y = P.x + P.y;
	A.position = P;
	A.velocity = this->p;
	A.velocity.y *= 2;
	A.name[0] = 'a';
	A.name[1] = 'b';
	self->s = A;
	self->s.position.x++;
	Q = self->s.velocity;
	/* first assigned, so made of the type assigned */
	copy = A;
	this->q = Q;
	W.u = 0x11223344;
	printf("%d %d %d %d\n", P.x, P.y, this->p.x, this->p.y);
	printf("%d %d %d %d %s\n", A.position.x, A.position.y, A.velocity.x, A.velocity.y,
	    A.name);
	printf("%d %d %d %d %s\n", self->s.position.x, self->s.position.y, Q.x, Q.y,
	    self->s.name);
	printf("%d %d %s %d\n", copy.velocity.y, this->q.y, copy.name, sizeof (copy));
	printf("%x %x %x\n", W.b[0], W.b[3], W.u);
	exit(0);
}
