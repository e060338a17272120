/* Several providers in one file, one of them empty. */
provider first {
	probe a(int x);
};
provider empty { };
provider second {
	probe b(long y, long z);
};
