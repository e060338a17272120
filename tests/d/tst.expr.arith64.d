/*
 * D computes in 64 bits and narrows a value only where it is recorded or
 * cast to a narrower type (the DTrace Guide, "Arithmetic Operators"); a
 * variable keeps the whole register stored in it, as illumos's STV stores it:
 * illumos's arithmetic/tst.basics.d (these seven lines) expects -91738734
 * on its sixth line, as Oracle's copy did before Oracle's 2021 change
 * (1319599982, its variables narrowed to their types). printf() prints an
 * int at its size. Constants fold alike. An aggregation's key is recorded
 * at its type's size, so x * x of an int x = 65536 is the key 0.
 */
#pragma D option quiet

BEGIN
{
	i = 0;
	i = 1 + 2 + 3;
	printf("%d\n", i);
	i = i * 3;
	printf("%d\n", i);
	i = (i * 3) + i;
	printf("%d\n", i);
	i = (i + (i * 3) + i) * i;
	printf("%d\n", i);
	/* (i + 4i + i) * i is 3359232000: past an int, divided back in 64 bits */
	i = i - (i + (i * 3) + i) * i / i * i;
	printf("%d\n", i);
	i = i * (i - 3 + 5 / i * i) / i * 6;
	printf("%d\n", i);
	i = i ^ 5;
	printf("%d\n", i);

	/* the wide intermediate: not narrowed by the division or the comparison */
	j = 100000;
	printf("%d %d\n", j * j / j, j * j > 0);
	/* kept whole where stored (printed as an int), narrowed where cast */
	k = j * j;
	printf("%d %d %d\n", k, (int)(j * j) == k, (short)(j * j / 16));
	/* a wider variable keeps what an int expression computed */
	l = (long)0;
	l = j * j;
	printf("%d\n", l);
	/* constants fold in 64 bits too */
	printf("%d %d\n", 2147483647 * 4 / 4, 65536 * 65536 / 65536);
	x = 65536;
	@keys[x * x] = count();
	@keys[0] = count();
	exit(0);
}
