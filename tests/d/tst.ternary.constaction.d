/*
 * A ?: whose condition is an integer constant when it is parsed (a literal,
 * an integer inline of one, an operator over those) is the branch it takes,
 * as DTrace's parser folds it (dt_node_op3): an action there is an action,
 * the way the DTraceToolkit's scripts print their optional columns
 * ("OPT_printid ? printf(...) : 1;", OPT_printid an inline of the shell's
 * options). The branch not taken is never compiled; the "1;" taken is an
 * expression alone, which traces nothing.
 */
#pragma D option quiet

inline int OPT_printid = 1;
inline int OPT_cpu = 0;
inline int BOTH = OPT_printid && !OPT_cpu;

BEGIN
{
	OPT_printid ? printf("%s ", "PID/LWP") : 1;
	OPT_cpu ? printf("%s ", "CPU") : 1;
	BOTH ? printf("both ") : trace("not this");
	0 ? trace(1) : printf("literal ");
	(OPT_printid + OPT_cpu == 1) ? printf("sum\n") : 1;
	exit(0);
}
