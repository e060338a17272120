/* What tests/d/lib/rt.d depends on (#pragma D depends_on library rtbase.d). */
typedef int rt_width_t;
enum rt_bits { RT_BITS = 8 };
