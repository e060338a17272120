typedef struct in { int dummy; } in_t;
typedef struct out { int dummy; } out_t;
provider t {
	probe a(in_t *p) : (out_t *q);
};
