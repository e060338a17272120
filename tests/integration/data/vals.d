/* Probes for the gdb and bpftrace tests: every integer size and sign, pointers, strings. */
provider vals {
	probe ints(char c, signed char sc, unsigned char uc, short s, unsigned short us, int i,
	    unsigned int ui, long l, unsigned long ul, long long ll, unsigned long long ull,
	    _Bool b);
	probe ptrs(const char *str, void *p, int *ip, string s2);
	probe consts(int a, unsigned int b, long c, char d);
	probe none();
};
