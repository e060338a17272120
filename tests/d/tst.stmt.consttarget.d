/* @target: bad */
/*
 * Expressions alone in a clause of the traced process, constants too (the
 * "1;" a folded ?: leaves: the DTraceToolkit's "OPT_x ? @a[...] = count()
 * : 1;"): evaluated, nothing recorded, and the clause's other actions run.
 */
#pragma D option quiet

inline int OPT_counts = 0;

rt$target:::once
{
	1;
	"str";
	arg0 + 1;
	OPT_counts ? @c[probefunc] = count() : 1;
	@n[probefunc] = count();
}
