/*
 * The provider of tests/integration/data/pm.c, a small server built as
 * PostgreSQL is: a postmaster that forks a backend per connection. The
 * query probes are PostgreSQL's own (src/backend/utils/probes.d).
 */
provider postgresql {
	probe query__start(const char *query);
	probe query__done(const char *query);
	probe backend__start(int n);
	probe work(int worker, int seq);
	probe idle(int n);
};
