/* @target: mem */
/* @options: -L lib */
/*
 * args[] of a probe with translated arguments go through the translator of
 * the library directory (lib/rt.d, which depends on lib/rtbase.d); an
 * argument whose translated type is its native type is the native value.
 */
#pragma D option quiet

rt$target:::info
{
	printf("small %d big %d text %s width %d n %d\n", args[0]->small, args[0]->big,
	    args[0]->text, args[0]->width, args[1]);
	printf("s8 %d str %s\n", args[2]->s8, copyinstr((uintptr_t)args[2]->str));
	@[args[0]->text] = sum(args[0]->small);
}
