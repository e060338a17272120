/* @target: narrow */
/*
 * A value of an unsigned type is unsigned wherever it goes: printf()'s %d and
 * %i print it as %u does (DTrace's printf checks the argument's type and
 * turns the conversion into %u), and args[] of an unsigned char or unsigned
 * short argument are zero-extended. rt:::narrow fires with (1, 200, 65000,
 * -56, -536); trace() prints a char or a short unsigned whatever its sign, as
 * DTrace does.
 */
#pragma D option quiet

BEGIN
{
	printf("%d %i %d %d\n", (unsigned char)-2, (unsigned short)-2, (uint32_t)-1,
	    (uint64_t)-1);
	printf("%d %d %d\n", (char)-2, (short)-2, (int32_t)-1);
	x = (unsigned char)-2;
	printf("%d %u %x %5d|%-5d|\n", x, x, x, x, x);
}

rt$target:::narrow
{
	printf("%d %d %d %d\n", args[1], args[2], args[3], args[4]);
	printf("%d %d %d %d\n", args[1] == 200, args[2] == 65000, args[3] == -56,
	    args[4] == -536);
	printf("%d %d\n", arg1, arg2);
	trace(args[1]);
	trace(args[2]);
	trace(args[3]);
	trace(args[4]);
	printf("\n");
}
