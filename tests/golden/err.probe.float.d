provider t {
	probe a(int x, double ratio);
};
