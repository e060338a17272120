/* @target: ticks 3 1 */
/* A clause that traces and aggregates: its records print, its aggregation at exit. */
rt$target:::tick
{
	trace(arg1);
	@ = quantize(arg1);
}
