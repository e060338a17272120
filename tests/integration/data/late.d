/* The provider of the library that tests/integration/late.sh loads after the attach. */
provider late {
	probe enter(int n, const char *who);
	probe leave(int n);
};
