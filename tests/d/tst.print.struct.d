/*
 * print(): a value by its type, as illumos's dtrace prints it (its
 * dt_print.c, after mdb's ::print): a struct's members with their declared
 * types, integers in hexadecimal, a char as a character, a bit-field with
 * its width and bits, an enum by name, a float with %+.7e, a char array
 * that holds a string as one, other arrays as lists, nested and anonymous
 * structs and unions. A struct ends at its closing brace; a scalar's line
 * ends with a newline.
 */
#pragma D option quiet

enum color { RED, GREEN = 5, BLUE };

struct inner {
	uint8_t v;
	uint16_t w;
};

struct outer {
	int a;
	char c;
	char name[6];
	struct inner in;
	union {
		uint32_t u;
		int16_t s;
	};
	enum color col;
	int flags : 3;
	unsigned int mode : 12;
	short arr[3];
	double d;
	void *p;
};

struct outer o;

BEGIN
{
	o.a = 20;
	o.c = 'x';
	o.name[0] = 'd';
	o.name[1] = 'o';
	o.in.v = 0x11;
	o.in.w = 0x2211;
	o.u = 0x44332211;
	o.col = GREEN;
	o.flags = -1;
	o.mode = 0x123;
	o.arr[1] = 7;
	o.p = (void *)0x1000;
	print(o);
	printf("\n");
	print(o.in);
	printf("\n");
	print(o.a);
	print(o.c);
	print(o.name);
	print("a string");
	print(o.arr);
	printf("\n");
	exit(0);
}
