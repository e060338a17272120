/* @target: bad */
/*
 * A char array of the process is a string, cut at the array's size; its
 * elements are chars.
 */
#pragma D option quiet

struct five {
	char name[5];
	char rest[32];
};

rt$target:::once
{
	printf("[%s] [%s] %c\n", ((struct five *)arg1)->name, ((struct five *)arg1)->rest,
	    ((struct five *)arg1)->name[1]);
	trace(((struct five *)arg1)->name);
	trace("\n");
	@[((struct five *)arg1)->name] = count();
}
