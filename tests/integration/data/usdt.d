/* The provider of tests/integration/usdt.sh's programs (usdt_mix.c, usdt_hot.c, usdt_sys.c). */
provider usdt {
	probe hdr(int, int);
	probe both(int, int);
	probe tick(int);
};
