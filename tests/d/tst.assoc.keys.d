/*
 * Integer keys are compared as 64-bit values, whatever their type:
 * a[(char)1] is a[1] and a[1L]; negative keys and pointers are keys too.
 * String keys are compared as strings, from wherever they come.
 */
#pragma D option quiet

BEGIN
{
	a[1] = 1;
	a[(char)1] += 1;
	a[1L] += 1;
	a[(short)-1] = 5;
	p[(int *)0x1000] = 7;
	this->k = "key";
	n[strjoin("k", "ey")] = 3;
	printf("%d %d %d %d\n", a[1], a[-1], a[0xffff], p[(int *)0x1000]);
	printf("%d %d %d\n", n["key"], n[this->k], n["ke"]);
	exit(0);
}
