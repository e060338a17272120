/* A provider for the linkage tests. */
provider lnk {
	probe hit(int n, const char *where);
	probe dead(int n);
};
