/*
 * Strings compare as strcmp() orders them: variables, constants, results
 * of subroutines, and NULL, which compares as "".
 */
#pragma D option quiet

self string unset;

BEGIN
{
	a = "apple";
	b = "banana";
	this->a2 = strjoin("app", "le");
	printf("%d %d %d %d\n", a == this->a2, a != b, a < b, b > a);
	printf("%d %d %d %d\n", a <= this->a2, a >= b, "apple" == this->a2, b == "banana");
	printf("%d %d %d\n", self->unset == NULL, self->unset < a, NULL == "");
	printf("%s\n", a < b ? "a first" : "b first");
	exit(0);
}
