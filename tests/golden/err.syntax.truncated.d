provider trunc {
	probe a(int x);
	probe b(int
