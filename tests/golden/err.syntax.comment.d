provider t {
	probe a(int x); /* a comment that never ends
};
