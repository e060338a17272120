/* @target: ticks 500 4 */
/*
 * A global associative array is shared by every thread of the target:
 * four threads count their fires into it at once (each its own element),
 * and each thread's last value goes in by thread and name; END reads
 * what they left after the target has exited.
 */
#pragma D option quiet

rt$target:::tick
{
	fires[arg0]++;
	last[arg0, "seq"] = arg1;
	all["fires"]++;
}

END
{
	printf("%d %d %d %d\n", fires[0], fires[1], fires[2], fires[3]);
	printf("%d %d %d %d\n", last[0, "seq"], last[1, "seq"], last[2, "seq"], last[3, "seq"]);
	printf("%d\n", all["fires"] <= 2000 && all["fires"] > 0);
}
