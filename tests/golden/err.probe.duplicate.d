provider t {
	probe a(int x);
	probe b(int y);
	probe a(long z);
};
