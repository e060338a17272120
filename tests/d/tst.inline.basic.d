/* @target: ticks 3 1 */
/*
 * inline declarations: named expressions of a type, compiled where they are
 * used (so a builtin in one is the probe's), converted to their type, and
 * usable in other inlines, predicates and keys.
 */
#pragma D option quiet

inline int LIMIT = 2 * 3 + 1;
inline char SMALL = 300;
inline string GREETING = "hello";
inline string WHO = strjoin(GREETING, ", world");
inline int64_t SEQ = arg1 * LIMIT;
inline int LAST = 2;

BEGIN
{
	printf("%d %d %s %s %d\n", LIMIT, SMALL, GREETING, WHO, strlen(WHO));
}

rt$target:::tick
/arg1 == LAST/
{
	printf("%d\n", SEQ);
	@[GREETING] = sum(SEQ);
}
