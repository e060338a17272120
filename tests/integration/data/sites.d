/* tests/integration/sites.sh: one probe with sites in two functions. */
provider sites {
	probe p(int x);
};
