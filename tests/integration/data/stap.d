/*
 * The provider of stapprog.c, built the way SystemTap builds a program:
 * its own dtrace script (-h and -G) and <sys/sdt.h>, no udtrace at all.
 */
provider stapprog {
	probe tick(int, long, long);
	probe mem(long, int);
};
