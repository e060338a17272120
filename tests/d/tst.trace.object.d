/*
 * trace() of a struct, a union or an array (not of chars, a string): its
 * bytes, printed as tracemem() prints them, as DTrace traces it.
 */
#pragma D option quiet

struct {
	int a;
	char b;
	int c;
} st;
union {
	int a;
	char b[3];
} u;
int arr[3];
char name[8];

BEGIN
{
	st.a = 0x1234;
	st.c = 0x9876;
	u.a = 0x12345678;
	arr[0] = 1;
	arr[2] = -1;
	name[0] = 'h';
	name[1] = 'i';
	trace(st);
	trace(u);
	trace(arr);
	trace(name);
	printf("\n");
	exit(0);
}
