/* strjoin() of constants, variables, empty strings, and its own results. */
#pragma D option quiet

BEGIN
{
	a = "foo";
	self->b = "bar";
	printf("[%s] [%s] [%s] [%s]\n", strjoin(a, self->b), strjoin("", a), strjoin(a, ""),
	    strjoin("", ""));
	printf("[%s]\n", strjoin(strjoin(a, "-"), strjoin(self->b, strjoin("-", a))));
	exit(0);
}
