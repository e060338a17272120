/* Without -C, which lines a conditional keeps is unknown: an error, not a comment. */
# file: src/t.c
provider t {
#ifdef WITH_A
	probe a(int x);
#endif
};
