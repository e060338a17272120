/*
 * strtok(): DTrace's tst.strtok.d, whose position lives for the probe's
 * firing: it carries over from one clause of BEGIN to the next. Delimiters
 * in a row are one; NULL at the end.
 */
#pragma D option quiet

BEGIN
{
	this->str = ",,,Carrots,,Barley,Oatmeal,,,Beans,";
}

BEGIN
/(this->field = strtok(this->str, ",")) == NULL/
{
	exit(1);
}

BEGIN
{
	printf("%s\n", this->field);
}

BEGIN
/(this->field = strtok(NULL, ",")) == NULL/
{
	exit(2);
}

BEGIN
{
	printf("%s\n", this->field);
	printf("%s\n", strtok(NULL, ","));
	printf("%s\n", strtok(NULL, ","));
	printf("%d\n", strtok(NULL, ",") == NULL);
	printf("[%s] [%s] [%s]\n", strtok("foobar", "o"), strtok("oobar", "o"), strtok("foo", "bar"));
	printf("%d %d\n", strtok("", "foo") == NULL, strtok("xxx", "x") == NULL);
	exit(0);
}
