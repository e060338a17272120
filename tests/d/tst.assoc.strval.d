/*
 * String values: copied when stored; an element never set is NULL, which
 * compares equal to "" (as in DTrace); storing "" keeps the element.
 */
#pragma D option quiet

BEGIN
{
	names[1] = "one";
	names[2] = strjoin("tw", "o");
	this->s = "three";
	names[3] = this->s;
	this->s = "changed";
	printf("%s %s %s\n", names[1], names[2], names[3]);
	printf("%d %d %d\n", names[4] == NULL, names[4] == "", names[1] == NULL);
	names[1] = "";
	printf("[%s] %d\n", names[1], names[1] == NULL);
	names[2] = NULL;
	printf("%d\n", names[2] == NULL);
	exit(0);
}
