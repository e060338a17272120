/* Typedefs of C types, builtin typedefs, function pointers, arrays, enums. */
typedef unsigned int oid_t;
typedef const char *cstr_t;
typedef struct node node_t;
enum color { RED, GREEN = 5, BLUE };

provider types {
	probe ids(oid_t oid, uint32_t u32, size_t sz, ssize_t ssz, int64_t i64);
	probe strs(cstr_t s, char *argv[], node_t *n, struct other *o);
	probe cb(int (*fn)(int, const char *), void (*done)(void));
	probe col(enum color c, uintptr_t up);
};
