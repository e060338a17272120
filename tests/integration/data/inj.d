/* Probes of the injection tests (tests/integration/inject.sh, data/injprog.c). */
provider inj {
	/* a blocking call returned: its result, and what it was */
	probe result(long value, const char *what);
	/* a worker thread's turn */
	probe work(int thread, long turn);
};
