/* A library that depends on one that is not there (err.lib.missing.d). */
#pragma D depends_on library missing.d
typedef int a_t;
